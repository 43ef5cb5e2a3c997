#ifndef SPYRE_REGRESS_DEVICE_ABI_H_
#define SPYRE_REGRESS_DEVICE_ABI_H_
/*
 * The device ABI: what a PyTorch backend library MAY export so that
 * spyre-regress can read more than parity and wall time from it
 * (docs/backends.md).
 *
 * A backend library is a shared object that registers a PrivateUse1 backend
 * with libtorch when it is loaded (static registrars: TORCH_LIBRARY_IMPL,
 * C10_REGISTER_GUARD_IMPL). The harness dlopen()s it, checks that PrivateUse1
 * kernels were registered, then looks up one symbol:
 *
 *   const spyre_device_abi* spyre_regress_device_abi(void);
 *
 * A library without the symbol is tested in generic mode. With it, the
 * harness checks abi_version == SPYRE_DEVICE_ABI_VERSION (another version is
 * refused) and reads every function pointer that lies inside struct_size and
 * is not NULL; a NULL pointer means "not provided" and the reports say so.
 *
 * Plain C: no libtorch or C++ type crosses this boundary. Strings returned by
 * the library are owned by it and stay valid until its next call of the same
 * function from the same thread. Every function is called from the thread
 * that runs the case.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPYRE_DEVICE_ABI_VERSION 1u
#define SPYRE_DEVICE_ABI_SYMBOL "spyre_regress_device_abi"

/* Element types a storage format is asked for. */
typedef enum spyre_device_dtype {
  SPYRE_DTYPE_FP16 = 1,
  SPYRE_DTYPE_BF16 = 2,
  SPYRE_DTYPE_FP32 = 3,
} spyre_device_dtype;

/* How the device stores a tensor of a dtype, which sets the judge's
 * yardstick: NATIVE = in the dtype's own format (the default when
 * storage_format is not provided), DL16 = the Spyre 16-bit format. */
typedef enum spyre_device_format {
  SPYRE_FORMAT_NATIVE = 0,
  SPYRE_FORMAT_DL16 = 1,
} spyre_device_format;

/* One traced operator call. */
typedef enum spyre_device_event_kind {
  SPYRE_EVENT_KERNEL = 0,   /* served by a device kernel */
  SPYRE_EVENT_FALLBACK = 1, /* served by a CPU fallback */
} spyre_device_event_kind;

typedef struct spyre_device_event {
  const char* op;      /* ATen operator name without namespace/overload: "mm" */
  int32_t kind;        /* spyre_device_event_kind */
  uint64_t modeled_ns; /* modeled device time; 0 when the device models none */
  uint64_t wall_ns;    /* host wall time of the call */
} spyre_device_event;

typedef void (*spyre_device_event_sink)(void* context, const spyre_device_event* event);
typedef void (*spyre_device_op_count_sink)(void* context, const char* op, uint64_t kernel_calls,
                                           uint64_t fallback_calls);

typedef struct spyre_device_abi {
  /* sizeof(spyre_device_abi) as the library was built; later versions only
   * append members. */
  uint32_t struct_size;
  uint32_t abi_version; /* SPYRE_DEVICE_ABI_VERSION */

  /* Required: identity, recorded in every run's fingerprint. */
  const char* (*name)(void);     /* "spyre_emu" */
  const char* (*version)(void);  /* "0.2.0" */
  const char* (*build_id)(void); /* anything that tells two builds apart; may be "" */

  /* Optional: the device's settings as one JSON object of strings and
   * numbers (recorded in the fingerprint next to libtorch and BLAS), and ""
   * or one line saying which setting is malformed. */
  const char* (*settings_json)(void);
  const char* (*settings_error)(void);

  /* Optional: device memory in bytes, now and highest since reset(). */
  int32_t (*memory_stats)(uint64_t* live_bytes, uint64_t* peak_bytes);

  /* Optional: per-op kernel and CPU-fallback call counts since reset(). */
  void (*op_counts)(spyre_device_op_count_sink sink, void* context);

  /* Optional: a trace scope. trace_begin opens one and returns its handle
   * (>= 0) or -1; trace_end closes it and hands every call recorded while it
   * was open to sink, in order. */
  int64_t (*trace_begin)(void);
  void (*trace_end)(int64_t scope, spyre_device_event_sink sink, void* context);

  /* Optional: fault injection. Replaces the injected faults with those of
   * spec ("" clears them). Returns 0, or nonzero with one line in error. */
  int32_t (*inject_faults)(const char* spec, char* error, size_t error_size);

  /* Optional: zeroes the counters and sets the peak to the live bytes. */
  void (*reset)(void);

  /* Optional: spyre_device_format of a spyre_device_dtype. */
  int32_t (*storage_format)(int32_t dtype);
} spyre_device_abi;

typedef const spyre_device_abi* (*spyre_device_abi_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* SPYRE_REGRESS_DEVICE_ABI_H_ */
