// KV block sizes in whole sticks and the block pool's hand-out order.
#include "kv_blocks.h"

#include <gtest/gtest.h>

namespace {

using suites::BlockAllocator;
using suites::BlocksForTokens;
using suites::KvBlockBytes;
using suites::KvBlockShape;
using suites::KvRowBytes;

KvBlockShape KvShape(int64_t head_dim, int64_t elem_bytes) {
  KvBlockShape s;
  s.layers = 2;
  s.kv_heads = 2;
  s.head_dim = head_dim;
  s.block_size = 16;
  s.elem_bytes = elem_bytes;
  return s;
}

TEST(KvBlocksTest, RowsTakeWholeSticks) {
  EXPECT_EQ(KvRowBytes(KvShape(32, 2)), 128);  // 64 bytes of data, one stick
  EXPECT_EQ(KvRowBytes(KvShape(64, 2)), 128);  // exactly one stick
  EXPECT_EQ(KvRowBytes(KvShape(65, 2)), 256);  // one element over: two sticks
  EXPECT_EQ(KvRowBytes(KvShape(32, 4)), 128);  // fp32: 32 elements a stick
  EXPECT_EQ(KvRowBytes(KvShape(33, 4)), 256);
}

TEST(KvBlocksTest, ABlockHoldsKeysAndValuesOfEveryLayerAndHead) {
  // granite-tiny in fp16: 2 layers, 2 KV heads, head_dim 32, 16 positions.
  EXPECT_EQ(KvBlockBytes(KvShape(32, 2)), 2 * 2 * 2 * 16 * 128);
}

TEST(KvBlocksTest, BlocksForTokensRoundsUp) {
  EXPECT_EQ(BlocksForTokens(0, 16), 0);
  EXPECT_EQ(BlocksForTokens(1, 16), 1);
  EXPECT_EQ(BlocksForTokens(16, 16), 1);
  EXPECT_EQ(BlocksForTokens(17, 16), 2);
  EXPECT_EQ(BlocksForTokens(64, 16), 4);
}

TEST(BlockAllocatorTest, HandsOutTheLowestFreeBlockAndReusesFreedOnes) {
  BlockAllocator pool(3);
  EXPECT_EQ(pool.Allocate(), 0);
  EXPECT_EQ(pool.Allocate(), 1);
  EXPECT_EQ(pool.Allocate(), 2);
  EXPECT_FALSE(pool.Allocate().has_value());
  EXPECT_EQ(pool.in_use(), 3);
  pool.Free(1);
  EXPECT_FALSE(pool.IsAllocated(1));
  EXPECT_EQ(pool.free_blocks(), 1);
  EXPECT_EQ(pool.Allocate(), 1);
  pool.Free(0);
  pool.Free(2);
  EXPECT_EQ(pool.in_use(), 1);
  EXPECT_EQ(pool.peak_in_use(), 3);
}

TEST(BlockAllocatorDeathTest, FreeingAFreeBlockAborts) {
  BlockAllocator pool(2);
  const auto b = pool.Allocate();
  ASSERT_TRUE(b.has_value());
  pool.Free(*b);
  EXPECT_DEATH(pool.Free(*b), "block 0 freed while not allocated");
  EXPECT_DEATH(pool.Free(7), "block 7 freed while not allocated");
}

}  // namespace
