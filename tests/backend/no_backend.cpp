// A shared library that loads fine but registers no PrivateUse1 backend: the
// harness must refuse it as a device library.
extern "C" __attribute__((visibility("default"))) int no_backend_here() { return 0; }
