// Interop tests that need Vulkan and CUDA on the same GPU. Without a CUDA
// device, or without a Vulkan device that supports the interop extensions,
// each test skips and says why.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "interop_test_util.hpp"

namespace {

using tilesort::Status;
using tilesort::StatusCode;
namespace ti = tilesort::interop;
namespace fs = tilesort::frame_shaders;

constexpr std::uint64_t kSecond = 1000000000ull;

/// When a test fails half-way, CUDA or Vulkan work may still wait on a value
/// nobody will signal, and the fixture's stream sync would hang the whole
/// binary. On a failed test this signals every semaphore far ahead
/// (bypassing interop's guard on purpose) so the remaining work drains.
struct UnblockOnExit {
  VkDevice device;
  std::vector<VkSemaphore> semaphores;
  ~UnblockOnExit() {
    if (!::testing::Test::HasFailure()) return;
    for (VkSemaphore s : semaphores) {
      std::uint64_t value = 0;
      if (vkGetSemaphoreCounterValue(device, s, &value) != VK_SUCCESS) continue;
      VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
      info.semaphore = s;
      info.value = value + (1ull << 40);
      (void)vkSignalSemaphore(device, &info);
    }
  }
};

class InteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CUDA_DEVICE();
    std::string why;
    vk_ = tstest::make_vulkan(true, /*optional*/ true, &why);
    if (!vk_) GTEST_SKIP() << "no usable Vulkan device: " << why;
    const Status support = ti::check_device_support(vk_->physical());
    if (!support.ok()) GTEST_SKIP() << "Vulkan device cannot share with CUDA: " << support.what();
    TS_OK(ti::VulkanDevice::create(vk_->instance(), vk_->physical(), vk_->device(), &device_));
    TS_OK(ti::find_cuda_device(vk_->physical(), &cuda_device_, &report_));
    TS_CUDA_ASSERT(cudaSetDevice(cuda_device_));
    TS_CUDA_ASSERT(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    rng_.seed(tstest::test_seed());
  }
  void TearDown() override {
    if (!stream_) return;  // skipped in SetUp
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    stream_ = nullptr;
    EXPECT_EQ(vkDeviceWaitIdle(vk_->device()), VK_SUCCESS);
    const cudaError_t e = cudaGetLastError();
    EXPECT_EQ(e, cudaSuccess) << "CUDA error left pending: " << cudaGetErrorString(e);
  }

  /// Copies `bytes` of `src` (a Vulkan buffer) to host memory through Vulkan.
  void vk_read(VkBuffer src, VkDeviceSize offset, std::size_t bytes, std::vector<unsigned char>* out) {
    tilesort::vkbase::Buffer staging;
    TS_OK(tilesort::vkbase::Buffer::create(*vk_, bytes, true, &staging));
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    TS_OK(vk_->allocate_command_buffers(1, &cmd));
    TS_VK_ASSERT(tstest::begin(cmd));
    VkBufferCopy region{offset, 0, bytes};
    vkCmdCopyBuffer(cmd, src, staging.get(), 1, &region);
    TS_VK_ASSERT(vkEndCommandBuffer(cmd));
    TS_OK(vk_->submit_and_wait(cmd));
    vkFreeCommandBuffers(vk_->device(), vk_->command_pool(), 1, &cmd);
    out->resize(bytes);
    std::memcpy(out->data(), staging.mapped(), bytes);
  }

  std::unique_ptr<tilesort::vkbase::Context> vk_;
  ti::VulkanDevice device_;
  ti::DeviceMatchReport report_;
  int cuda_device_ = -1;
  cudaStream_t stream_ = nullptr;
  tstest::Rng rng_;
};

// --- Device matching ---------------------------------------------------------------
TEST_F(InteropTest, FindsTheCudaDeviceByUuid) {
  ASSERT_GE(cuda_device_, 0);
  cudaDeviceProp prop{};
  TS_CUDA_ASSERT(cudaGetDeviceProperties(&prop, cuda_device_));
  EXPECT_EQ(std::memcmp(prop.uuid.bytes, report_.vulkan_uuid.data(), 16), 0);
  std::printf("[ interop ] Vulkan '%s' %s = CUDA #%d '%s'\n", report_.vulkan_name.c_str(),
              ti::to_string(report_.vulkan_uuid).c_str(), cuda_device_, prop.name);
}

// A Vulkan device no CUDA device matches (the real report, one UUID byte off).
TEST_F(InteropTest, DeviceMismatchNamesBothDevices) {
  ti::DeviceMatchReport report = report_;
  report.vulkan_uuid[15] ^= 0xFF;
  const Status s = ti::match_cuda_device(&report);
  ASSERT_EQ(s.code(), StatusCode::device_mismatch);
  const std::string what = s.what();
  EXPECT_NE(what.find(report_.vulkan_name), std::string::npos) << what;
  EXPECT_NE(what.find(ti::to_string(report.vulkan_uuid)), std::string::npos) << what;
  EXPECT_NE(what.find(ti::to_string(report_.cuda_devices.at(0).uuid)), std::string::npos) << what;
  std::printf("[ interop ] %s\n", s.what());
}

// --- Shared buffers -----------------------------------------------------------------
// CUDA writes, Vulkan reads (dedicated allocation made by interop).
TEST_F(InteropTest, SharedBufferRoundTripSanitizer) {
  const std::size_t words = 1 << 16;
  ti::SharedBuffer buffer;
  TS_OK(ti::SharedBuffer::create(device_, cuda_device_, words * 4, &buffer));
  ASSERT_TRUE(buffer.valid());
  ASSERT_NE(buffer.vk_buffer(), VK_NULL_HANDLE);
  std::vector<std::uint32_t> pattern(words);
  for (auto& w : pattern) w = std::uint32_t(rng_());
  TS_CUDA_ASSERT(cudaMemcpyAsync(buffer.cuda_ptr(), pattern.data(), words * 4, cudaMemcpyHostToDevice, stream_));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
  std::vector<unsigned char> got;
  ASSERT_NO_FATAL_FAILURE(vk_read(buffer.vk_buffer(), 0, words * 4, &got));
  EXPECT_EQ(std::memcmp(got.data(), pattern.data(), words * 4), 0) << "Vulkan does not see what CUDA wrote";
}

// The caller allocates one exportable VkDeviceMemory, binds two buffers at
// offsets, and maps each range into CUDA (sub-allocation).
TEST_F(InteropTest, CallerMemorySubAllocatedAtOffsets) {
  const VkDeviceSize bytes = 3 * 4096 + 100;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.pNext = &external;
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  VkBuffer buffers[2] = {};
  TS_VK_ASSERT(vkCreateBuffer(vk_->device(), &info, nullptr, &buffers[0]));
  TS_VK_ASSERT(vkCreateBuffer(vk_->device(), &info, nullptr, &buffers[1]));
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(vk_->device(), buffers[0], &req);
  const VkDeviceSize stride = (req.size + req.alignment - 1) / req.alignment * req.alignment;
  const VkDeviceSize offsets[2] = {stride / 2 / req.alignment * req.alignment + req.alignment, 0};
  // Buffer 0 at a non-zero offset, buffer 1 behind it.
  const VkDeviceSize at[2] = {offsets[0], offsets[0] + stride};
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = &export_info;
  alloc.allocationSize = at[1] + stride;
  const int type = device_.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  ASSERT_GE(type, 0);
  alloc.memoryTypeIndex = std::uint32_t(type);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  TS_VK_ASSERT(vkAllocateMemory(vk_->device(), &alloc, nullptr, &memory));
  TS_VK_ASSERT(vkBindBufferMemory(vk_->device(), buffers[0], memory, at[0]));
  TS_VK_ASSERT(vkBindBufferMemory(vk_->device(), buffers[1], memory, at[1]));
  {
    ti::SharedBuffer shared[2];
    for (int b = 0; b < 2; ++b) {
      ti::ExternalMemoryDesc desc;
      desc.allocation_size = alloc.allocationSize;
      desc.dedicated = false;
      desc.offset = at[b];
      desc.size = bytes;
      TS_OK(ti::SharedBuffer::import_memory(device_, cuda_device_, memory, desc, &shared[b]));
      EXPECT_EQ(shared[b].size(), bytes);
      EXPECT_EQ(shared[b].vk_buffer(), VK_NULL_HANDLE) << "the caller owns the Vulkan objects";
    }
    TS_CUDA_ASSERT(cudaMemsetAsync(shared[0].cuda_ptr(), 0x5A, bytes, stream_));
    TS_CUDA_ASSERT(cudaMemsetAsync(shared[1].cuda_ptr(), 0xC3, bytes, stream_));
    TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
    for (int b = 0; b < 2; ++b) {
      std::vector<unsigned char> got;
      ASSERT_NO_FATAL_FAILURE(vk_read(buffers[b], 0, bytes, &got));
      const unsigned char want = b == 0 ? 0x5A : 0xC3;
      EXPECT_EQ(std::count(got.begin(), got.end(), want), std::ptrdiff_t(bytes)) << "buffer " << b;
    }
    // A range past the allocation is refused, with nothing leaked.
    ti::ExternalMemoryDesc bad;
    bad.allocation_size = alloc.allocationSize;
    bad.offset = at[1];
    bad.size = alloc.allocationSize;
    ti::SharedBuffer refused;
    EXPECT_EQ(ti::SharedBuffer::import_memory(device_, cuda_device_, memory, bad, &refused).code(),
              StatusCode::invalid_argument);
  }  // CUDA side gone before the caller frees its memory
  vkDestroyBuffer(vk_->device(), buffers[0], nullptr);
  vkDestroyBuffer(vk_->device(), buffers[1], nullptr);
  vkFreeMemory(vk_->device(), memory, nullptr);
}

// The caller already has an fd: import_fd takes it over.
TEST_F(InteropTest, ImportFdFromCaller) {
  ti::ExportableBuffer vk_buffer;
  TS_OK(ti::ExportableBuffer::create(device_, 1 << 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &vk_buffer));
  ti::UniqueFd fd;
  TS_OK(vk_buffer.export_fd(&fd));
  const int raw = fd.get();
  ti::ExternalMemoryDesc desc;
  desc.allocation_size = vk_buffer.allocation_size();
  desc.dedicated = true;
  desc.size = vk_buffer.size();
  ti::SharedBuffer shared;
  TS_OK(ti::SharedBuffer::import_fd(std::move(fd), cuda_device_, desc, &shared));
  EXPECT_FALSE(fd.valid()) << "ownership passed to CUDA";
  (void)raw;  // CUDA may keep or close it; it is CUDA's now
  TS_CUDA_ASSERT(cudaMemsetAsync(shared.cuda_ptr(), 0x11, vk_buffer.size(), stream_));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
  std::vector<unsigned char> got;
  ASSERT_NO_FATAL_FAILURE(vk_read(vk_buffer.buffer(), 0, vk_buffer.size(), &got));
  EXPECT_EQ(std::count(got.begin(), got.end(), 0x11), std::ptrdiff_t(vk_buffer.size()));
  shared.reset();  // CUDA first, then the Vulkan buffer (declared earlier, destroyed later)
}

// Hundreds of create/import/destroy cycles, CUDA imports included, leave the fd count unchanged.
TEST_F(InteropTest, NoFdLeakWithCudaImports) {
  for (int warm = 0; warm < 2; ++warm) {
    const int before = tstest::open_fd_count();
    ASSERT_GE(before, 0);
    const int cycles = warm ? 200 : 2;
    for (int i = 0; i < cycles; ++i) {
      ti::SharedBuffer buffer;
      TS_OK(ti::SharedBuffer::create(device_, cuda_device_, 4096 * (1 + i % 5), &buffer));
      ti::SharedTimelineSemaphore semaphore;
      TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, i, &semaphore));
      if (i % 2) {
        semaphore.reset();
        buffer.reset();
      }
      // Failure path: a refused import must close its fd too.
      ti::ExportableBuffer vk_buffer;
      TS_OK(ti::ExportableBuffer::create(device_, 4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &vk_buffer));
      ti::UniqueFd fd;
      TS_OK(vk_buffer.export_fd(&fd));
      ti::ExternalMemoryDesc desc;
      desc.allocation_size = vk_buffer.allocation_size();
      desc.offset = vk_buffer.allocation_size();  // out of range
      ti::SharedBuffer refused;
      EXPECT_FALSE(ti::SharedBuffer::import_fd(std::move(fd), cuda_device_, desc, &refused).ok());
    }
    if (warm) {
      EXPECT_EQ(tstest::open_fd_count(), before) << "fds leaked over " << cycles << " cycles";
    }
  }
}

// --- The ordering guard ---------------------------------------------------------------------
TEST_F(InteropTest, OrderingGuardRefusesWaitsNobodySignalsSanitizer) {
  ti::SharedTimelineSemaphore sem;
  TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, 0, &sem));
  UnblockOnExit unblock{vk_->device(), {sem.vk_semaphore()}};
  // Nothing has promised 1: enqueuing the wait could hang the next launch.
  Status s = sem.cuda_wait(1, stream_);
  ASSERT_EQ(s.code(), StatusCode::ordering_violation) << s.what();
  EXPECT_NE(std::string(s.what()).find("submit it first"), std::string::npos) << s.what();
  // Waiting for a value already reached is always safe.
  TS_OK(sem.cuda_wait(0, stream_));

  VkCommandBuffer cmd = VK_NULL_HANDLE;
  TS_OK(vk_->allocate_command_buffers(1, &cmd));
  TS_VK_ASSERT(tstest::begin(cmd));
  TS_VK_ASSERT(vkEndCommandBuffer(cmd));
  TS_OK(sem.vk_submit(vk_->queue(), {cmd}, 0, 1));
  EXPECT_EQ(sem.promised_value(), 1u);
  TS_OK(sem.cuda_wait(1, stream_));
  // Signals must rise above everything promised.
  EXPECT_EQ(sem.cuda_signal(1, stream_).code(), StatusCode::ordering_violation);
  TS_OK(sem.cuda_signal(2, stream_));
  EXPECT_EQ(sem.declare_vulkan_signal(2).code(), StatusCode::ordering_violation);
  EXPECT_EQ(sem.vk_submit(vk_->queue(), {}, 2, 2).code(), StatusCode::ordering_violation);
  TS_OK(sem.host_wait(2, 10 * kSecond));
  std::uint64_t value = 0;
  TS_OK(sem.counter_value(&value));
  EXPECT_EQ(value, 2u);

  // An application that submits itself declares the signal, then CUDA may
  // wait. The batch waits on a gate semaphore, so its signal of 3 stays
  // pending until the host opens the gate.
  VkSemaphoreTypeCreateInfo gate_type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  gate_type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo gate_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  gate_info.pNext = &gate_type;
  VkSemaphore gate = VK_NULL_HANDLE;
  TS_VK_ASSERT(vkCreateSemaphore(vk_->device(), &gate_info, nullptr, &gate));
  unblock.semaphores.push_back(gate);
  VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  const std::uint64_t one = 1, three = 3;
  timeline.waitSemaphoreValueCount = 1;
  timeline.pWaitSemaphoreValues = &one;
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &three;
  VkSemaphore handle = sem.vk_semaphore();
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &timeline;
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &gate;
  submit.pWaitDstStageMask = &stage;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &handle;
  EXPECT_EQ(sem.cuda_wait(3, stream_).code(), StatusCode::ordering_violation);
  TS_VK_ASSERT(vkQueueSubmit(vk_->queue(), 1, &submit, VK_NULL_HANDLE));
  TS_OK(sem.declare_vulkan_signal(3));
  TS_OK(sem.cuda_wait(3, stream_));  // submitted, still pending: safe to enqueue
  // A host signal may not overtake the pending signal of 3.
  s = sem.signal_from_host(4);
  EXPECT_EQ(s.code(), StatusCode::ordering_violation) << s.what();
  EXPECT_NE(std::string(s.what()).find("still pending"), std::string::npos) << s.what();
  VkSemaphoreSignalInfo open_gate{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  open_gate.semaphore = gate;
  open_gate.value = 1;
  TS_VK_ASSERT(vkSignalSemaphore(vk_->device(), &open_gate));
  TS_OK(sem.host_wait(3, 10 * kSecond));
  TS_OK(sem.signal_from_host(4));
  TS_OK(sem.cuda_wait(4, stream_));
  TS_OK(sem.cuda_signal(5, stream_));
  TS_OK(sem.host_wait(5, 10 * kSecond));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
  TS_VK_ASSERT(vkQueueWaitIdle(vk_->queue()));
  vkDestroySemaphore(vk_->device(), gate, nullptr);
  unblock.semaphores.pop_back();
  vkFreeCommandBuffers(vk_->device(), vk_->command_pool(), 1, &cmd);
}

// A value reached through a path interop never saw (another semaphore API
// user) is accepted, because the guard also reads the counter.
TEST_F(InteropTest, OrderingGuardAcceptsValuesAlreadyReached) {
  ti::SharedTimelineSemaphore sem;
  TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, 0, &sem));
  VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  info.semaphore = sem.vk_semaphore();
  info.value = 10;
  TS_VK_ASSERT(vkSignalSemaphore(vk_->device(), &info));  // behind interop's back
  TS_OK(sem.cuda_wait(10, stream_));
  EXPECT_EQ(sem.cuda_wait(11, stream_).code(), StatusCode::ordering_violation);
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
}

// sort_in_place: a refused wait enqueues nothing; refused sort arguments
// still signal, so Vulkan never waits forever.
TEST_F(InteropTest, SortInPlaceAlwaysSignalsOnceItWaitedSanitizer) {
  ti::SharedTimelineSemaphore sem;
  TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, 0, &sem));
  tilesort::SortPlan plan;
  plan.value_type = tilesort::ValueType::b32;
  plan.max_items = 1024;
  plan.max_segments = 16;
  ti::InPlaceSorter sorter;
  TS_OK(ti::InPlaceSorter::create(plan, cuda_device_, &sorter));
  UnblockOnExit unblock{vk_->device(), {sem.vk_semaphore()}};
  tilesort::SortArgs args;  // keys == nullptr: refused by segmented_sort

  Status s = sorter.sort(sem, 1, 2, args, stream_);
  EXPECT_EQ(s.code(), StatusCode::ordering_violation) << s.what();
  EXPECT_EQ(sem.promised_value(), 0u) << "nothing may be enqueued after a refused wait";
  EXPECT_EQ(sorter.sort(sem, 2, 2, args, stream_).code(), StatusCode::ordering_violation);

  TS_OK(sem.signal_from_host(1));
  s = sorter.sort(sem, 1, 2, args, stream_);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.what();
  EXPECT_EQ(sem.promised_value(), 2u);
  TS_OK(sem.host_wait(2, 10 * kSecond));  // the signal came anyway
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
}

// run_between: any stream work between a wait and a signal; the work runs
// only when the wait was accepted, and Vulkan sees what it wrote.
TEST_F(InteropTest, RunBetweenOrdersArbitraryWorkSanitizer) {
  ti::SharedTimelineSemaphore sem;
  TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, 0, &sem));
  UnblockOnExit unblock{vk_->device(), {sem.vk_semaphore()}};
  ti::SharedBuffer buffer;
  TS_OK(ti::SharedBuffer::create(device_, cuda_device_, 4096, &buffer));
  int calls = 0;
  auto fill = [&](tilesort::Stream s) noexcept {
    ++calls;
    return Status::from_cuda(cudaMemsetAsync(buffer.cuda_ptr(), 0x7E, 4096, s), "cudaMemsetAsync");
  };
  EXPECT_EQ(ti::run_between(sem, 1, 2, stream_, fill).code(), StatusCode::ordering_violation);
  EXPECT_EQ(calls, 0) << "work ran although the wait was refused";
  TS_OK(sem.signal_from_host(1));
  TS_OK(ti::run_between(sem, 1, 2, stream_, fill));
  EXPECT_EQ(calls, 1);
  TS_OK(sem.host_wait(2, 10 * kSecond));
  std::vector<unsigned char> got;
  ASSERT_NO_FATAL_FAILURE(vk_read(buffer.vk_buffer(), 0, 4096, &got));
  EXPECT_EQ(std::count(got.begin(), got.end(), 0x7E), 4096);

  // bin_and_sort_between with arguments bin_and_sort refuses: error returned, signal still sent.
  tilesort::BinPlan plan;
  tilesort::BinArgs args;
  const Status s = ti::bin_and_sort_between(sem, 2, 3, nullptr, 0, plan, args, stream_);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.code(), StatusCode::ordering_violation) << s.what();
  TS_OK(sem.host_wait(3, 10 * kSecond));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
}

// --- Handoff::memory_word: Vulkan writes a word, CUDA waits on it ------------------------------
// Each frame a Vulkan batch fills a 1 MiB shared buffer with the frame's byte
// and writes the frame's value into the word; CUDA (run_between with the
// word) copies the buffer out. Every copy must see its own frame's fill: the
// word's wait orders CUDA after the batch's writes. CUDA's write is checked
// from the host through the word's memory, and the guard still refuses waits
// nobody promised.
TEST_F(InteropTest, MemoryWordHandoffOrdersFramesSanitizer) {
  const Status support = ti::query_memory_word_support(cuda_device_);
  if (!support.ok()) GTEST_SKIP() << "no 64-bit stream memory operations: " << support.what();
  constexpr std::size_t kBytes = 1 << 20;
  constexpr int kFrames = 60;
  ti::SharedTimelineSemaphore sem;
  TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, 0, &sem));
  UnblockOnExit unblock{vk_->device(), {sem.vk_semaphore()}};
  ti::SharedWord word;
  TS_OK(ti::SharedWord::create(device_, cuda_device_, &word));
  ti::SharedBuffer data;
  TS_OK(ti::SharedBuffer::create(device_, cuda_device_, kBytes, &data));
  void* copies = nullptr;
  TS_CUDA_ASSERT(cudaMalloc(&copies, kBytes * kFrames));
  std::vector<VkCommandBuffer> cmds(kFrames);
  TS_OK(vk_->allocate_command_buffers(std::uint32_t(kFrames), cmds.data()));

  EXPECT_EQ(sem.cuda_wait_word(word, 1, stream_).code(), StatusCode::ordering_violation);
  for (int f = 0; f < kFrames; ++f) {
    const std::uint64_t v = 2ull * std::uint64_t(f);  // batch: wait v, signal v + 1; CUDA signals v + 2
    TS_VK_ASSERT(tstest::begin(cmds[f]));
    vkCmdFillBuffer(cmds[f], data.vk_buffer(), 0, kBytes, 0x01010101u * std::uint32_t(f + 1));
    word.record_vk_write(cmds[f], v + 1);
    TS_VK_ASSERT(vkEndCommandBuffer(cmds[f]));
    TS_OK(sem.vk_submit(vk_->queue(), {cmds[f]}, v, v + 1));
    auto copy = [&](tilesort::Stream s) noexcept {
      return Status::from_cuda(cudaMemcpyAsync(static_cast<char*>(copies) + kBytes * std::size_t(f), data.cuda_ptr(),
                                               kBytes, cudaMemcpyDeviceToDevice, s),
                               "cudaMemcpyAsync");
    };
    TS_OK(ti::run_between(sem, v + 1, v + 2, stream_, copy, &word));
  }
  TS_OK(sem.host_wait(2ull * kFrames, 10 * kSecond));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
  std::vector<unsigned char> host(kBytes * kFrames);
  TS_CUDA_ASSERT(cudaMemcpy(host.data(), copies, host.size(), cudaMemcpyDeviceToHost));
  for (int f = 0; f < kFrames; ++f) {
    const auto begin = host.begin() + std::ptrdiff_t(kBytes) * f;
    EXPECT_EQ(std::count(begin, begin + std::ptrdiff_t(kBytes), static_cast<unsigned char>(f + 1)),
              std::ptrdiff_t(kBytes))
        << "frame " << f << " copied before its Vulkan fill was visible";
  }
  // CUDA -> word: cuStreamWriteValue64 lands after the earlier stream work.
  TS_OK(word.cuda_write(12345, stream_));
  TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
  std::uint64_t value = 0;
  TS_CUDA_ASSERT(cudaMemcpy(&value, word.cuda_ptr(), sizeof value, cudaMemcpyDeviceToHost));
  EXPECT_EQ(value, 12345u);
  vkFreeCommandBuffers(vk_->device(), vk_->command_pool(), std::uint32_t(kFrames), cmds.data());
  TS_CUDA_ASSERT(cudaFree(copies));
}

// --- Frames: Vulkan writes -> CUDA sorts in place -> Vulkan verifies -------------------------
struct FrameRig {
  static constexpr std::uint32_t kSlots = 1000;
  std::uint32_t capacity = 0;
  ti::SharedBuffer keys;                // dedicated allocation made by interop
  VkDeviceMemory caller_memory = VK_NULL_HANDLE;  // values + layout: the caller's, sub-allocated
  VkBuffer values_buffer = VK_NULL_HANDLE, layout_buffer = VK_NULL_HANDLE;
  ti::SharedBuffer values, layout;
  tilesort::vkbase::Buffer verdicts;
  fs::FramePipelines pipelines;
  ti::SharedTimelineSemaphore semaphore;
  ti::InPlaceSorter sorter;
  VkDevice device = VK_NULL_HANDLE;

  ~FrameRig() { release_caller_objects(); }
  void release_caller_objects() {
    // CUDA's views of the caller's memory go first, then the caller frees it.
    values.reset();
    layout.reset();
    if (values_buffer) vkDestroyBuffer(device, values_buffer, nullptr);
    if (layout_buffer) vkDestroyBuffer(device, layout_buffer, nullptr);
    if (caller_memory) vkFreeMemory(device, caller_memory, nullptr);
    values_buffer = layout_buffer = VK_NULL_HANDLE;
    caller_memory = VK_NULL_HANDLE;
  }
};

void make_rig(const tilesort::vkbase::Context& vk, const ti::VulkanDevice& device, int cuda_device, std::uint32_t capacity,
              FrameRig& rig) {
  rig.device = vk.device();
  rig.capacity = capacity;
  TS_OK(ti::SharedBuffer::create(device, cuda_device, VkDeviceSize(capacity) * 4, &rig.keys));
  // values and layout share one exportable allocation of the caller's.
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.pNext = &external;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.size = VkDeviceSize(capacity) * 4;
  TS_VK_ASSERT(vkCreateBuffer(vk.device(), &info, nullptr, &rig.values_buffer));
  info.size = fs::layout_bytes(capacity);
  TS_VK_ASSERT(vkCreateBuffer(vk.device(), &info, nullptr, &rig.layout_buffer));
  VkMemoryRequirements rv{}, rl{};
  vkGetBufferMemoryRequirements(vk.device(), rig.values_buffer, &rv);
  vkGetBufferMemoryRequirements(vk.device(), rig.layout_buffer, &rl);
  const VkDeviceSize align = std::max(rv.alignment, rl.alignment);
  const VkDeviceSize layout_at = (rv.size + align - 1) / align * align;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = &export_info;
  alloc.allocationSize = layout_at + rl.size;
  const int type = device.find_memory_type(rv.memoryTypeBits & rl.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  ASSERT_GE(type, 0);
  alloc.memoryTypeIndex = std::uint32_t(type);
  TS_VK_ASSERT(vkAllocateMemory(vk.device(), &alloc, nullptr, &rig.caller_memory));
  TS_VK_ASSERT(vkBindBufferMemory(vk.device(), rig.values_buffer, rig.caller_memory, 0));
  TS_VK_ASSERT(vkBindBufferMemory(vk.device(), rig.layout_buffer, rig.caller_memory, layout_at));
  ti::ExternalMemoryDesc desc;
  desc.allocation_size = alloc.allocationSize;
  desc.offset = 0;
  desc.size = VkDeviceSize(capacity) * 4;
  TS_OK(ti::SharedBuffer::import_memory(device, cuda_device, rig.caller_memory, desc, &rig.values));
  desc.offset = layout_at;
  desc.size = fs::layout_bytes(capacity);
  TS_OK(ti::SharedBuffer::import_memory(device, cuda_device, rig.caller_memory, desc, &rig.layout));

  TS_OK(tilesort::vkbase::Buffer::create(vk, FrameRig::kSlots * sizeof(fs::FrameVerdict), true, &rig.verdicts));
  fs::FrameBuffers b;
  b.keys = rig.keys.vk_buffer();
  b.values = rig.values_buffer;
  b.layout = rig.layout_buffer;
  b.verdicts = rig.verdicts.get();
  TS_OK(rig.pipelines.init(vk.device(), b));
  TS_OK(ti::SharedTimelineSemaphore::create(device, cuda_device, 0, &rig.semaphore));
  tilesort::SortPlan plan;
  plan.key_type = tilesort::KeyType::u32;
  plan.value_type = tilesort::ValueType::b32;
  plan.offset_type = tilesort::OffsetType::u32;
  plan.max_items = capacity;
  plan.max_segments = capacity;
  TS_OK(ti::InPlaceSorter::create(plan, cuda_device, &rig.sorter));
}

tilesort::SortArgs frame_args(const FrameRig& rig) {
  tilesort::SortArgs args;
  args.keys = rig.keys.cuda_ptr();
  args.values = rig.values.cuda_ptr();
  auto* layout = static_cast<unsigned char*>(rig.layout.cuda_ptr());
  args.d_num_segments = reinterpret_cast<const std::uint32_t*>(layout + offsetof(fs::LayoutHeader, num_segments));
  args.d_num_items = reinterpret_cast<const std::uint32_t*>(layout + offsetof(fs::LayoutHeader, num_items));
  args.offsets = layout + fs::kLayoutOffsetsByte;
  return args;
}

fs::FramePushConstants random_frame(tstest::Rng& rng, std::uint32_t capacity, std::uint32_t slot) {
  fs::FramePushConstants f;
  f.seed = std::uint32_t(rng());
  const unsigned pick = unsigned(rng() % 10);
  f.num_items = pick == 0 ? 0 : pick == 1 ? capacity : std::uint32_t(rng() % (capacity + 1));
  f.segment_stride = 1u << (rng() % 17);  // segments of 1 .. 2^17 items
  f.key_mask = (rng() % 4 == 0) ? 0xFFu : 0xFFFFFFFFu;  // many equal keys: stability
  f.num_segments = fs::segments_for(f.num_items, f.segment_stride);
  f.slot = slot;
  return f;
}

/// Runs `frames` frames without any host wait in the loop; `sort(f)` false
/// makes CUDA skip the sort (wait + signal only) on that frame.
template <class SortFrame>
void run_frames(const tilesort::vkbase::Context& vk, FrameRig& rig, cudaStream_t stream, tstest::Rng& rng,
                std::uint32_t frames, SortFrame sort_frame, std::vector<fs::FramePushConstants>* params) {
  ASSERT_LE(frames, FrameRig::kSlots);
  std::vector<VkCommandBuffer> cmds(2 * frames);
  TS_OK(vk.allocate_command_buffers(std::uint32_t(cmds.size()), cmds.data()));
  const tilesort::SortArgs args = frame_args(rig);
  const std::uint64_t base = rig.semaphore.promised_value();
  UnblockOnExit unblock{vk.device(), {rig.semaphore.vk_semaphore()}};
  params->clear();
  for (std::uint32_t frame = 0; frame < frames; ++frame) {
    const fs::FramePushConstants f = random_frame(rng, rig.capacity, frame);
    params->push_back(f);
    const std::uint64_t v = base + 3ull * frame;
    VkCommandBuffer generate = cmds[2 * frame], verify = cmds[2 * frame + 1];
    TS_VK_ASSERT(tstest::begin(generate));
    rig.pipelines.record_generate(generate, f);
    TS_VK_ASSERT(vkEndCommandBuffer(generate));
    TS_VK_ASSERT(tstest::begin(verify));
    rig.pipelines.record_verify(verify, f);
    TS_VK_ASSERT(vkEndCommandBuffer(verify));

    TS_OK(rig.semaphore.vk_submit(vk.queue(), {generate}, v, v + 1));        // Vulkan writes
    if (sort_frame(frame)) {
      TS_OK(rig.sorter.sort(rig.semaphore, v + 1, v + 2, args, stream));   // CUDA sorts in place
    } else {
      TS_OK(rig.semaphore.cuda_wait(v + 1, stream));
      TS_OK(rig.semaphore.cuda_signal(v + 2, stream));
    }
    TS_OK(rig.semaphore.vk_submit(vk.queue(), {verify}, v + 2, v + 3));      // Vulkan verifies
  }
  TS_OK(rig.semaphore.host_wait(base + 3ull * frames, 300 * kSecond));
  TS_OK(tilesort::read_device_status(rig.sorter.workspace(), stream));
  vkFreeCommandBuffers(vk.device(), vk.command_pool(), std::uint32_t(cmds.size()), cmds.data());
}

void expect_verdicts(const FrameRig& rig, const std::vector<fs::FramePushConstants>& params,
                     std::uint32_t skipped_frame = ~0u) {
  const auto* verdict = static_cast<const fs::FrameVerdict*>(rig.verdicts.mapped());
  std::uint32_t failed = 0;
  for (std::uint32_t frame = 0; frame < params.size(); ++frame) {
    const fs::FrameVerdict& v = verdict[frame];
    const fs::FramePushConstants& f = params[frame];
    EXPECT_EQ(v.num_items, f.num_items) << "frame " << frame;
    EXPECT_EQ(v.num_segments, f.num_segments) << "frame " << frame;
    if (frame == skipped_frame) {
      // Control: without the sort the verifier must object (when there is
      // anything to sort).
      if (f.num_items >= 256 && f.segment_stride >= 64) {
        EXPECT_GT(v.order_violations, 0u) << "the verifier accepted an unsorted frame";
      }
      continue;
    }
    if (!v.passed() && failed++ < 10)
      ADD_FAILURE() << "frame " << frame << ": n=" << f.num_items << " segments=" << f.num_segments
                    << " stride=" << f.segment_stride << " mask=" << std::hex << f.key_mask << std::dec
                    << " -> order violations " << v.order_violations << ", pair mismatches " << v.pair_mismatches
                    << ", checksums " << v.got_sum_a << "/" << v.expected_sum_a << " " << v.got_sum_b << "/"
                    << v.expected_sum_b;
  }
  EXPECT_EQ(failed, 0u) << "frames failed verification";
}

TEST_F(InteropTest, ThousandFramesSortedInPlace) {
  TS_TRACE_SEED();
  FrameRig rig;
  ASSERT_NO_FATAL_FAILURE(make_rig(*vk_, device_, cuda_device_, 1u << 20, rig));
  std::vector<fs::FramePushConstants> params;
  ASSERT_NO_FATAL_FAILURE(run_frames(*vk_, rig, stream_, rng_, 1000, [](std::uint32_t) { return true; }, &params));
  ASSERT_NO_FATAL_FAILURE(expect_verdicts(rig, params));
  std::uint64_t items = 0;
  for (const auto& f : params) items += f.num_items;
  std::printf("[ interop ] 1000 frames, %llu items sorted in place, all verified by Vulkan\n",
              (unsigned long long)items);
}

// A short loop for compute-sanitizer, with one control frame left unsorted.
TEST_F(InteropTest, FrameLoopSanitizer) {
  TS_TRACE_SEED();
  FrameRig rig;
  ASSERT_NO_FATAL_FAILURE(make_rig(*vk_, device_, cuda_device_, 1u << 14, rig));
  std::vector<fs::FramePushConstants> params;
  const std::uint32_t control = 5;
  ASSERT_NO_FATAL_FAILURE(
      run_frames(*vk_, rig, stream_, rng_, 12, [&](std::uint32_t f) { return f != control; }, &params));
  ASSERT_NO_FATAL_FAILURE(expect_verdicts(rig, params, control));
}

// Teardown in every order the API allows, after real frames: each object
// alone, in either order relative to the others, moved-from objects, reset
// twice, and after the CUDA stream is gone. The fd count must come back.
TEST_F(InteropTest, TeardownInEveryAllowedOrder) {
  int before = -1;  // counted after order 0, once the driver has opened what it keeps open
  for (int order = 0; order < 6; ++order) {
    SCOPED_TRACE("teardown order " + std::to_string(order));
    auto rig = std::make_unique<FrameRig>();
    ASSERT_NO_FATAL_FAILURE(make_rig(*vk_, device_, cuda_device_, 1u << 12, *rig));
    std::vector<fs::FramePushConstants> params;
    ASSERT_NO_FATAL_FAILURE(run_frames(*vk_, *rig, stream_, rng_, 3, [](std::uint32_t) { return true; }, &params));
    ASSERT_NO_FATAL_FAILURE(expect_verdicts(*rig, params));
    TS_CUDA_ASSERT(cudaStreamSynchronize(stream_));
    switch (order) {
      case 0:  // semaphore, sorter, buffers
        rig->semaphore.reset();
        rig->sorter.reset();
        rig->keys.reset();
        rig->release_caller_objects();
        break;
      case 1:  // buffers first (caller's memory before interop's), semaphore last
        rig->release_caller_objects();
        rig->keys.reset();
        rig->sorter.reset();
        rig->semaphore.reset();
        break;
      case 2: {  // moved out, destroyed by the new owners in reverse order
        ti::SharedBuffer keys = std::move(rig->keys);
        ti::SharedTimelineSemaphore sem = std::move(rig->semaphore);
        EXPECT_FALSE(rig->keys.valid());
        EXPECT_FALSE(rig->semaphore.valid());
        rig.reset();
        EXPECT_TRUE(keys.valid());
        EXPECT_TRUE(sem.valid());
        break;
      }
      case 3:  // reset twice, then destructors on empty objects
        rig->keys.reset();
        rig->keys.reset();
        rig->semaphore.reset();
        rig->semaphore.reset();
        rig.reset();
        break;
      case 4: {  // move-assign over live objects (the old ones are released)
        ti::SharedBuffer other;
        TS_OK(ti::SharedBuffer::create(device_, cuda_device_, 4096, &other));
        rig->keys = std::move(other);
        ti::SharedTimelineSemaphore sem;
        TS_OK(ti::SharedTimelineSemaphore::create(device_, cuda_device_, 5, &sem));
        rig->semaphore = std::move(sem);
        EXPECT_EQ(rig->semaphore.promised_value(), 5u);
        rig.reset();
        break;
      }
      case 5:  // the CUDA stream goes first, then everything in declaration order
        TS_CUDA_ASSERT(cudaStreamDestroy(stream_));
        stream_ = nullptr;
        rig.reset();
        TS_CUDA_ASSERT(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        break;
    }
    rig.reset();
    TS_CUDA_ASSERT(cudaDeviceSynchronize());
    TS_CUDA_ASSERT(cudaGetLastError());
    if (order == 0) before = tstest::open_fd_count();
  }
  TS_VK_ASSERT(vkDeviceWaitIdle(vk_->device()));
  EXPECT_EQ(tstest::open_fd_count(), before) << "teardown leaked fds";
}

}  // namespace
