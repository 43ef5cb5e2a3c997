// Device memory: stick-padded accounting, capacity, peak, and the fence.
#include "spyre_emu/memory.h"

#include <csignal>
#include <cstring>

#include <gtest/gtest.h>

#include "spyre_emu/runtime.h"
#include "spyre_emu/stats.h"

namespace spyre_emu {
namespace {

// Restores the settings a test changed.
class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = CurrentConfig(); }
  void TearDown() override { SetConfig(saved_); }
  Config saved_;
};

TEST_F(MemoryTest, StickPaddingFollowsTheDesignExamples) {
  EXPECT_EQ(PaddedDeviceBytes({5, 100, 150}, 2), 192000u);
  EXPECT_EQ(PaddedDeviceBytes({512, 256}, 2), 262144u);
  EXPECT_EQ(PaddedDeviceBytes({3, 33}, 4), 3u * 64 * 4);  // 32 fp32 per stick
  EXPECT_EQ(PaddedDeviceBytes({}, 4), 128u);
  EXPECT_EQ(PaddedDeviceBytes({4, 0}, 2), 0u);
  EXPECT_EQ(PaddedDeviceBytes({7}, 8), 128u);  // 16 int64 per stick
}

TEST_F(MemoryTest, LiveAndPeakBytes) {
  reset_stats();
  const uint64_t base = stats().live_bytes;
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_TRUE(DeviceAllocate(1000, 4096, &a).ok());
  ASSERT_TRUE(DeviceAllocate(10, 128, &b).ok());
  EXPECT_EQ(stats().live_bytes, base + 4224);
  DeviceFree(a);
  EXPECT_EQ(stats().live_bytes, base + 128);
  EXPECT_EQ(stats().peak_bytes, base + 4224);
  reset_stats();
  EXPECT_EQ(stats().peak_bytes, base + 128);
  DeviceFree(b);
  EXPECT_EQ(stats().live_bytes, base);
}

TEST_F(MemoryTest, OutOfMemoryNamesRequestLiveAndCapacity) {
  Config c = saved_;
  c.memory_bytes = 10000;
  SetConfig(c);
  void* a = nullptr;
  EXPECT_EQ(stats().capacity_bytes, 10000u);
  ASSERT_TRUE(DeviceAllocate(100, 6000, &a).ok());
  void* b = nullptr;
  Status s = DeviceAllocate(100, 5000, &b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kOutOfMemory);
  EXPECT_EQ(b, nullptr);
  EXPECT_NE(s.message().find("requested 5000 device bytes"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("6000 bytes live"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("10000 bytes capacity"), std::string::npos) << s.message();
  DeviceFree(a);
  ASSERT_TRUE(DeviceAllocate(100, 5000, &b).ok()) << "freed bytes are available again";
  DeviceFree(b);
}

TEST_F(MemoryTest, AccessScopeOpensFencedMemory) {
  Config c = saved_;
  c.fence = true;
  SetConfig(c);
  void* p = nullptr;
  ASSERT_TRUE(DeviceAllocate(4096 * 3, 4096 * 3, &p).ok());
  EXPECT_TRUE(IsDevicePointer(static_cast<char*>(p) + 5000));
  {
    AccessScope outer{p};
    {
      AccessScope inner{static_cast<char*>(p) + 100};
      std::memset(p, 7, 4096 * 3);
    }
    EXPECT_EQ(static_cast<unsigned char*>(p)[4096 * 2], 7) << "still open in the outer scope";
  }
  EXPECT_DEATH(
      {
        volatile char v = *static_cast<volatile char*>(p);
        (void)v;
      },
      "");
  DeviceFree(p);
}

TEST_F(MemoryTest, DeathWhenTheHostReadsFencedMemory) {
  // ctest runs every test with SPYRE_EMU_FENCE=1; switch it on here too so
  // the binary also proves this when run by hand.
  Config c = saved_;
  c.fence = true;
  SetConfig(c);
  void* p = nullptr;
  ASSERT_TRUE(DeviceAllocate(64, 128, &p).ok());
  EXPECT_EXIT(
      {
        volatile float v = *static_cast<volatile float*>(p);
        (void)v;
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  DeviceFree(p);
}

}  // namespace
}  // namespace spyre_emu
