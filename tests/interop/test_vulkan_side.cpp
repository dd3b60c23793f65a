// Interop tests that need Vulkan but no CUDA device: they run on CI with
// lavapipe (mesa-vulkan-drivers) and skip, with the reason, where the Vulkan
// driver lacks a capability (lavapipe cannot export semaphores).
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "interop_test_util.hpp"

namespace {

using tilesort::Status;
using tilesort::StatusCode;
namespace ti = tilesort::interop;
namespace fs = tilesort::frame_shaders;

#define REQUIRE_VULKAN(vk, interop, optional)                                            \
  std::string vk##_why;                                                                  \
  auto vk = ::tstest::make_vulkan(interop, optional, &vk##_why);                         \
  if (!vk) GTEST_SKIP() << "no usable Vulkan device: " << vk##_why

TEST(VulkanSide, RequiredExtensionAndFeatureLists) {
  const auto device_ext = ti::device_extensions();
  ASSERT_EQ(device_ext.size(), 2u);
  EXPECT_STREQ(device_ext[0], VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  EXPECT_STREQ(device_ext[1], VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  EXPECT_TRUE(ti::instance_extensions().empty()) << "Vulkan 1.2 instances need no extra instance extension";
  ti::RequiredFeatures features;
  int tail = 0;
  auto* chain = static_cast<VkPhysicalDeviceVulkan12Features*>(features.chain(&tail));
  EXPECT_EQ(chain->sType, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  EXPECT_EQ(chain->timelineSemaphore, VK_TRUE);
  EXPECT_EQ(chain->pNext, &tail);
}

TEST(VulkanSide, NewStatusCodesHaveNames) {
  EXPECT_STREQ(tilesort::to_string(StatusCode::vulkan_error), "vulkan_error");
  EXPECT_STREQ(tilesort::to_string(StatusCode::missing_vulkan_support), "missing_vulkan_support");
  EXPECT_STREQ(tilesort::to_string(StatusCode::device_mismatch), "device_mismatch");
  EXPECT_STREQ(tilesort::to_string(StatusCode::ordering_violation), "ordering_violation");
  const Status s = ti::vulkan_status(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory");
  EXPECT_EQ(s.code(), StatusCode::vulkan_error);
  EXPECT_NE(std::strstr(s.what(), "vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY"), nullptr) << s.what();
  EXPECT_TRUE(ti::vulkan_status(VK_SUCCESS, "x").ok());
}

TEST(VulkanSide, DeviceMismatchMessageNamesBothSides) {
  ti::DeviceMatchReport report;
  report.vulkan_name = "Vulkan GPU";
  for (int i = 0; i < 16; ++i) report.vulkan_uuid[i] = std::uint8_t(i);
  ti::DeviceMatchReport::CudaDevice cuda;
  cuda.ordinal = 0;
  cuda.name = "CUDA GPU";
  for (int i = 0; i < 16; ++i) cuda.uuid[i] = std::uint8_t(0xf0 + i);
  report.cuda_devices.push_back(cuda);
  Status s = ti::match_cuda_device(&report);
  EXPECT_EQ(s.code(), StatusCode::device_mismatch);
  EXPECT_EQ(report.matched, -1);
  const std::string what = s.what();
  EXPECT_NE(what.find("'Vulkan GPU'"), std::string::npos) << what;
  EXPECT_NE(what.find("00010203-0405-0607-0809-0a0b0c0d0e0f"), std::string::npos) << what;
  EXPECT_NE(what.find("#0 'CUDA GPU' f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff"), std::string::npos) << what;

  // A second CUDA device with the right UUID is found, whatever its position.
  cuda.ordinal = 1;
  cuda.uuid = report.vulkan_uuid;
  report.cuda_devices.push_back(cuda);
  s = ti::match_cuda_device(&report);
  EXPECT_TRUE(s.ok()) << s.what();
  EXPECT_EQ(report.matched, 1);

  report.cuda_devices.clear();
  s = ti::match_cuda_device(&report);
  EXPECT_EQ(s.code(), StatusCode::device_mismatch);
  EXPECT_NE(std::string(s.what()).find("none of the 0 CUDA device(s)"), std::string::npos) << s.what();
}

// Status's message has a fixed capacity: the mismatch message must shrink to
// fit it (names, then devices) rather than be cut inside a UUID.
TEST(VulkanSide, DeviceMismatchMessageFitsWithLongNamesAndManyDevices) {
  const auto uuid_of = [](std::uint8_t first) {
    ti::DeviceUuid uuid{};
    for (int i = 0; i < 16; ++i) uuid[i] = std::uint8_t(first + i);
    return uuid;
  };
  const auto fits_uncut = [](const Status& s) {
    return std::strlen(s.what()) < Status::kMessageCapacity - 1;
  };
  ti::DeviceMatchReport report;
  report.vulkan_name = "NVIDIA H100 80GB HBM3";  // the name that once cut the message
  report.vulkan_uuid = uuid_of(0x10);
  ti::DeviceMatchReport::CudaDevice cuda;
  cuda.ordinal = 0;
  cuda.name = "NVIDIA H100 80GB HBM3";
  cuda.uuid = uuid_of(0x80);
  report.cuda_devices.push_back(cuda);
  Status s = ti::match_cuda_device(&report);
  ASSERT_EQ(s.code(), StatusCode::device_mismatch);
  std::string what = s.what();
  EXPECT_TRUE(fits_uncut(s)) << what;
  EXPECT_NE(what.find("'NVIDIA H100 80GB HBM3' (UUID " + ti::to_string(report.vulkan_uuid) + ")"), std::string::npos)
      << what;
  EXPECT_NE(what.find("#0 'NVIDIA H100 80GB HBM3' " + ti::to_string(cuda.uuid) + ";"), std::string::npos) << what;

  // Eight devices with long names: names go, then devices, never a cut UUID.
  report.vulkan_name = std::string(300, 'V');
  report.cuda_devices.clear();
  for (int d = 0; d < 8; ++d) {
    cuda.ordinal = d;
    cuda.name = "A CUDA device with a rather long marketing name, number " + std::to_string(d);
    cuda.uuid = uuid_of(std::uint8_t(0x80 + d));
    report.cuda_devices.push_back(cuda);
  }
  s = ti::match_cuda_device(&report);
  ASSERT_EQ(s.code(), StatusCode::device_mismatch);
  what = s.what();
  EXPECT_TRUE(fits_uncut(s)) << what;
  EXPECT_NE(what.find("'" + std::string(45, 'V') + "...' (UUID " + ti::to_string(report.vulkan_uuid) + ")"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("none of the 8 CUDA device(s)"), std::string::npos) << what;
  EXPECT_NE(what.find("#0 " + ti::to_string(report.cuda_devices[0].uuid) + ";"), std::string::npos) << what;
  EXPECT_EQ(what.find("marketing"), std::string::npos) << what;
  int listed = 0;
  for (const auto& d : report.cuda_devices)
    if (what.find("#" + std::to_string(d.ordinal) + " " + ti::to_string(d.uuid) + ";") != std::string::npos) ++listed;
  ASSERT_GT(listed, 0) << what;
  if (listed < 8) {
    EXPECT_NE(what.find(" and " + std::to_string(8 - listed) + " more (see the report)"), std::string::npos) << what;
  }
}

TEST(VulkanSide, UniqueFdOwnership) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  {
    ti::UniqueFd a(p[0]);
    ti::UniqueFd b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), p[0]);
    ti::UniqueFd c(p[1]);
    c = std::move(b);  // closes p[1], takes p[0]
    EXPECT_FALSE(tstest::fd_is_open(p[1]));
    EXPECT_TRUE(tstest::fd_is_open(p[0]));
    const int raw = c.release();
    EXPECT_EQ(raw, p[0]);
    EXPECT_FALSE(c.valid());
    c.reset(raw);
  }
  EXPECT_FALSE(tstest::fd_is_open(p[0]));
}

// Every failure path of import_fd closes the fd it was given, with or
// without a CUDA device (without one, the import itself fails).
TEST(VulkanSide, ImportFdClosesTheFdOnFailure) {
  // Round 0 lets CUDA initialise (the driver opens fds of its own once); round 1 counts.
  for (int round = 0; round < 2; ++round) {
  const int before = tstest::open_fd_count();
  for (int variant = 0; variant < 4; ++variant) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    close(p[1]);
    ti::ExternalMemoryDesc desc;
    desc.allocation_size = variant == 0 ? 0 : 4096;
    desc.offset = variant == 1 ? 4096 : 0;
    desc.size = variant == 2 ? 8192 : 0;
    ti::UniqueFd fd(p[0]);
    ti::SharedBuffer buffer;
    // variant 3: a pipe is no memory handle: CUDA refuses it (or has no device).
    const Status s = ti::SharedBuffer::import_fd(std::move(fd), 0, desc, &buffer);
    EXPECT_FALSE(s.ok()) << "variant " << variant;
    EXPECT_EQ(s.code(), variant < 3 ? StatusCode::invalid_argument : StatusCode::cuda_error) << s.what();
    EXPECT_FALSE(fd.valid());
    EXPECT_FALSE(tstest::fd_is_open(p[0])) << "variant " << variant << ": fd leaked";
    EXPECT_FALSE(buffer.valid());
  }
  if (round == 1) {
    EXPECT_EQ(tstest::open_fd_count(), before);
  }
  }
}

TEST(VulkanSide, QueryDeviceSupportIsConsistent) {
  REQUIRE_VULKAN(vk, false, true);
  ti::DeviceSupport support;
  const Status s = ti::query_device_support(vk->physical(), &support);
  ASSERT_TRUE(s.ok()) << s.what();
  EXPECT_EQ(support.device_name, vk->device_name());
  const bool all = support.api_version_ok && support.external_memory_fd && support.external_semaphore_fd &&
                   support.timeline_semaphore && support.exportable_buffer_memory &&
                   support.exportable_timeline_semaphore;
  EXPECT_EQ(all, support.complete());
  const Status check = ti::check_device_support(vk->physical());
  EXPECT_EQ(check.ok(), support.complete());
  std::printf("[ interop ] %s: %s\n", support.device_name.c_str(), check.what());
  if (!support.complete()) {
    EXPECT_EQ(check.code(), StatusCode::missing_vulkan_support);
    // Each missing item is named (the Status message is bounded: the first two at least).
    for (std::size_t i = 0; i < std::min<std::size_t>(support.missing.size(), 2); ++i)
      EXPECT_NE(std::string(check.what()).find(support.missing[i]), std::string::npos) << check.what();
    if (!support.external_semaphore_fd) {
      EXPECT_NE(std::string(check.what()).find(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME), std::string::npos);
    }
  }
  EXPECT_EQ(ti::query_device_support(VK_NULL_HANDLE, &support).code(), StatusCode::invalid_argument);
}

TEST(VulkanSide, MissingExtensionsAreNamedOneByOne) {
  REQUIRE_VULKAN(vk, /*interop*/ false, true);  // a device created WITHOUT the interop extensions
  ti::VulkanDevice device;
  Status s = ti::VulkanDevice::create(vk->instance(), vk->physical(), vk->device(), &device);
  ASSERT_EQ(s.code(), StatusCode::missing_vulkan_support) << s.what();
  EXPECT_NE(std::string(s.what()).find(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME), std::string::npos) << s.what();
  EXPECT_NE(std::string(s.what()).find(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME), std::string::npos) << s.what();
  EXPECT_FALSE(device.valid());

  // A partial device is accepted on request; what needs a missing piece says so.
  s = ti::VulkanDevice::create(vk->instance(), vk->physical(), vk->device(), &device, ti::VulkanDevice::Require::available);
  ASSERT_TRUE(s.ok()) << s.what();
  ti::ExportableBuffer buffer;
  s = ti::ExportableBuffer::create(device, 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &buffer);
  EXPECT_EQ(s.code(), StatusCode::missing_vulkan_support);
  EXPECT_NE(std::string(s.what()).find(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME), std::string::npos) << s.what();
  ti::ExportableTimelineSemaphore semaphore;
  s = ti::ExportableTimelineSemaphore::create(device, 0, &semaphore);
  EXPECT_EQ(s.code(), StatusCode::missing_vulkan_support);
  EXPECT_NE(std::string(s.what()).find(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME), std::string::npos) << s.what();
  ti::SharedTimelineSemaphore shared;
  EXPECT_EQ(ti::SharedTimelineSemaphore::create(device, 0, 0, &shared).code(), StatusCode::missing_vulkan_support);

  EXPECT_EQ(ti::VulkanDevice::create(VK_NULL_HANDLE, vk->physical(), vk->device(), &device).code(),
            StatusCode::invalid_argument);
}

// The Vulkan side of a shared buffer: exportable memory and its fd.
TEST(VulkanSide, ExportBufferMemory) {
  REQUIRE_VULKAN(vk, true, true);
  ti::VulkanDevice device;
  ASSERT_TRUE(ti::VulkanDevice::create(vk->instance(), vk->physical(), vk->device(), &device,
                                       ti::VulkanDevice::Require::available).ok());
  if (!device.get_memory_fd) GTEST_SKIP() << vk->device_name() << " has no " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
  for (VkDeviceSize size : {VkDeviceSize(4), VkDeviceSize(4096), VkDeviceSize(1) << 20, VkDeviceSize(12345)}) {
    ti::ExportableBuffer buffer;
    Status s = ti::ExportableBuffer::create(device, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &buffer);
    ASSERT_TRUE(s.ok()) << s.what();
    EXPECT_TRUE(buffer.valid());
    EXPECT_EQ(buffer.size(), size);
    EXPECT_GE(buffer.allocation_size(), size);
    ti::UniqueFd a, b;
    ASSERT_TRUE(buffer.export_fd(&a).ok());
    ASSERT_TRUE(buffer.export_fd(&b).ok());
    EXPECT_TRUE(a.valid());
    EXPECT_TRUE(b.valid());
    EXPECT_NE(a.get(), b.get()) << "each export is a new fd";
    ti::ExportableBuffer moved(std::move(buffer));
    EXPECT_FALSE(buffer.valid());
    EXPECT_TRUE(moved.valid());
  }
  ti::ExportableBuffer empty;
  EXPECT_EQ(ti::ExportableBuffer::create(device, 0, 0, &empty).code(), StatusCode::invalid_argument);
  ti::UniqueFd fd;
  EXPECT_EQ(empty.export_fd(&fd).code(), StatusCode::invalid_argument);
}

TEST(VulkanSide, ExportTimelineSemaphore) {
  REQUIRE_VULKAN(vk, true, true);
  ti::VulkanDevice device;
  ASSERT_TRUE(ti::VulkanDevice::create(vk->instance(), vk->physical(), vk->device(), &device,
                                       ti::VulkanDevice::Require::available).ok());
  ti::DeviceSupport support;
  ASSERT_TRUE(ti::query_device_support(vk->physical(), &support).ok());
  if (!device.get_semaphore_fd || !support.exportable_timeline_semaphore)
    GTEST_SKIP() << vk->device_name() << " cannot export timeline semaphores as opaque fds (lavapipe cannot)";
  ti::ExportableTimelineSemaphore semaphore;
  Status s = ti::ExportableTimelineSemaphore::create(device, 7, &semaphore);
  ASSERT_TRUE(s.ok()) << s.what();
  std::uint64_t value = 0;
  TS_VK_ASSERT(vkGetSemaphoreCounterValue(vk->device(), semaphore.semaphore(), &value));
  EXPECT_EQ(value, 7u);
  ti::UniqueFd fd;
  ASSERT_TRUE(semaphore.export_fd(&fd).ok());
  EXPECT_TRUE(fd.valid());
}

// Many create / export / destroy cycles leave the process's fd count where it was.
TEST(VulkanSide, NoFdLeakAcrossExportCycles) {
  REQUIRE_VULKAN(vk, true, true);
  ti::VulkanDevice device;
  ASSERT_TRUE(ti::VulkanDevice::create(vk->instance(), vk->physical(), vk->device(), &device,
                                       ti::VulkanDevice::Require::available).ok());
  if (!device.get_memory_fd) GTEST_SKIP() << vk->device_name() << " has no " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
  ti::DeviceSupport support;
  ASSERT_TRUE(ti::query_device_support(vk->physical(), &support).ok());
  const bool semaphores = device.get_semaphore_fd && support.exportable_timeline_semaphore;
  // One warm-up cycle: drivers open their own files lazily on first use.
  for (int warm = 0; warm < 2; ++warm) {
    const int before = tstest::open_fd_count();
    ASSERT_GE(before, 0) << "/proc/self/fd is not readable";
    const int cycles = warm ? 300 : 1;
    for (int i = 0; i < cycles; ++i) {
      ti::ExportableBuffer buffer;
      ASSERT_TRUE(ti::ExportableBuffer::create(device, 4096 * (1 + i % 7), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &buffer).ok());
      ti::UniqueFd fd;
      ASSERT_TRUE(buffer.export_fd(&fd).ok());
      if (i % 3 == 0) buffer.reset();  // fd outlives the buffer
      if (semaphores) {
        ti::ExportableTimelineSemaphore semaphore;
        ASSERT_TRUE(ti::ExportableTimelineSemaphore::create(device, i, &semaphore).ok());
        ti::UniqueFd sem_fd;
        ASSERT_TRUE(semaphore.export_fd(&sem_fd).ok());
      }
    }
    if (warm) {
      EXPECT_EQ(tstest::open_fd_count(), before) << "fds leaked over " << cycles << " cycles";
    }
  }
  if (!semaphores) std::printf("[ interop ] semaphore exports not cycled: %s cannot export them\n", vk->device_name());
}

// --- The frame shaders, checked against a CPU reference -----------------------------
// Generates a frame, checks what the generator wrote, then feeds the
// verifier sorted, unsorted and corrupted data: it must pass only the first.
TEST(VulkanSide, FrameShadersGenerateAndVerify) {
  REQUIRE_VULKAN(vk, false, true);
  const std::uint32_t capacity = 1 << 14;
  tilesort::vkbase::Buffer keys, values, layout, verdicts;
  TS_OK(tilesort::vkbase::Buffer::create(*vk, capacity * 4, true, &keys));
  TS_OK(tilesort::vkbase::Buffer::create(*vk, capacity * 4, true, &values));
  TS_OK(tilesort::vkbase::Buffer::create(*vk, fs::layout_bytes(capacity), true, &layout));
  TS_OK(tilesort::vkbase::Buffer::create(*vk, 8 * sizeof(fs::FrameVerdict), true, &verdicts));
  fs::FrameBuffers bindings;
  bindings.keys = keys.get();
  bindings.values = values.get();
  bindings.layout = layout.get();
  bindings.verdicts = verdicts.get();
  fs::FramePipelines pipelines;
  TS_OK(pipelines.init(vk->device(), bindings));
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  TS_OK(vk->allocate_command_buffers(1, &cmd));

  tstest::Rng rng(tstest::test_seed());
  SCOPED_TRACE(tstest::seed_message());
  auto* k = static_cast<std::uint32_t*>(keys.mapped());
  auto* v = static_cast<std::uint32_t*>(values.mapped());
  auto* lay = static_cast<std::uint32_t*>(layout.mapped());
  auto* verdict = static_cast<fs::FrameVerdict*>(verdicts.mapped());
  auto run = [&](bool generate, bool verify, const fs::FramePushConstants& f) {
    ASSERT_EQ(vkResetCommandBuffer(cmd, 0), VK_SUCCESS);
    ASSERT_EQ(tstest::begin(cmd), VK_SUCCESS);
    if (generate) pipelines.record_generate(cmd, f);
    if (verify) pipelines.record_verify(cmd, f);
    ASSERT_EQ(vkEndCommandBuffer(cmd), VK_SUCCESS);
    TS_OK(vk->submit_and_wait(cmd));
  };
  const std::uint32_t strides[] = {1, 3, 64, 1000, 1 << 15};
  for (int round = 0; round < 10; ++round) {
    fs::FramePushConstants f;
    f.seed = std::uint32_t(rng());
    f.num_items = round == 0 ? 0 : round == 1 ? capacity : std::uint32_t(rng() % (capacity + 1));
    f.segment_stride = strides[round % 5];
    f.key_mask = (round % 3 == 0) ? 0xFu : 0xFFFFFFFFu;
    f.num_segments = fs::segments_for(f.num_items, f.segment_stride);
    f.slot = std::uint32_t(round % 8);
    SCOPED_TRACE("round " + std::to_string(round) + " n=" + std::to_string(f.num_items) +
                 " stride=" + std::to_string(f.segment_stride));
    ASSERT_NO_FATAL_FAILURE(run(true, false, f));
    // What the generator wrote equals the CPU mirror.
    const auto* header = reinterpret_cast<const fs::LayoutHeader*>(lay);
    ASSERT_EQ(header->num_segments, f.num_segments);
    ASSERT_EQ(header->num_items, f.num_items);
    const std::uint32_t* offsets = lay + fs::kLayoutOffsetsByte / 4;
    for (std::uint32_t s = 0; s <= f.num_segments; ++s) {
      ASSERT_EQ(offsets[s], fs::segment_start(f, s)) << "offset " << s;
      if (s) {
        ASSERT_LE(offsets[s - 1], offsets[s]);
      }
    }
    ASSERT_EQ(offsets[f.num_segments], f.num_items);
    for (std::uint32_t i = 0; i < f.num_items; ++i) {
      ASSERT_EQ(k[i], fs::key_of(f, i)) << i;
      ASSERT_EQ(v[i], i) << i;
    }
    EXPECT_EQ(verdict[f.slot].num_items, f.num_items);

    // Sort on the CPU (stable, by key), as CUDA would: the verdict passes.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t s = 0; s < f.num_segments; ++s) {
      pairs.clear();
      for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
        pairs.emplace_back(k[i], v[i]);
      }
      std::stable_sort(pairs.begin(), pairs.end(), [](auto a, auto b) { return a.first < b.first; });
      for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
        k[i] = pairs[i - offsets[s]].first;
        v[i] = pairs[i - offsets[s]].second;
      }
    }
    ASSERT_NO_FATAL_FAILURE(run(false, true, f));
    EXPECT_TRUE(verdict[f.slot].passed()) << "violations " << verdict[f.slot].order_violations << " mismatches "
                                          << verdict[f.slot].pair_mismatches;
    if (f.num_items < 64 || f.segment_stride < 2) continue;
    // Disorder: regenerate (unsorted input); sorted input this long is practically impossible.
    fs::FramePushConstants g = f;
    ASSERT_NO_FATAL_FAILURE(run(true, true, g));
    EXPECT_GT(verdict[g.slot].order_violations, 0u) << "unsorted input passed the order check";
    EXPECT_EQ(verdict[g.slot].pair_mismatches, 0u);
    EXPECT_EQ(verdict[g.slot].got_sum_a, verdict[g.slot].expected_sum_a);
    // A key that left its value: swap two different keys, not their values.
    ASSERT_NO_FATAL_FAILURE(run(true, false, g));
    std::uint32_t j = f.num_items - 1;
    while (j > 0 && k[j] == k[0]) --j;
    ASSERT_GT(j, 0u);
    std::swap(k[0], k[j]);
    ASSERT_NO_FATAL_FAILURE(run(false, true, g));
    EXPECT_GE(verdict[g.slot].pair_mismatches, 2u);
    EXPECT_EQ(verdict[g.slot].got_sum_a, verdict[g.slot].expected_sum_a);
    // A value lost and another duplicated: only the checksums can tell.
    ASSERT_NO_FATAL_FAILURE(run(true, false, g));
    v[f.num_items - 1] = v[0];
    ASSERT_NO_FATAL_FAILURE(run(false, true, g));
    EXPECT_NE(verdict[g.slot].got_sum_a, verdict[g.slot].expected_sum_a) << "checksum missed a duplicated value";
    EXPECT_NE(verdict[g.slot].got_sum_b, verdict[g.slot].expected_sum_b) << "checksum missed a duplicated value";
    EXPECT_FALSE(verdict[g.slot].passed());
  }
}

/// A compute context with VK_KHR_shader_clock's device clock, for the
/// bench's stamp and poll shaders; empty with the reason when there is none.
std::string clock_context(std::unique_ptr<tilesort::vkbase::Context>* vk) {
  *vk = std::make_unique<tilesort::vkbase::Context>();
  tilesort::vkbase::ComputeContextOptions o;
  o.device.shader_device_clock = tilesort::vkbase::Want::if_offered;
  const Status made = tilesort::vkbase::create_compute_context(o, vk->get());
  if (!made.ok()) return std::string("no usable Vulkan device: ") + made.what();
  if (!(*vk)->shader_clock_enabled())
    return std::string((*vk)->device_name()) + " has no VK_KHR_shader_clock shaderDeviceClock";
  return std::string();
}

// timestamp.comp (the bench's handoff clock) on whatever device offers VK_KHR_shader_clock.
TEST(VulkanSide, TimestampShaderWritesRisingClock) {
  std::unique_ptr<tilesort::vkbase::Context> vk;
  const std::string no_clock = clock_context(&vk);
  if (!no_clock.empty()) GTEST_SKIP() << no_clock;
  tilesort::vkbase::Buffer stamps;
  TS_OK(tilesort::vkbase::Buffer::create(*vk, 4 * 8, true, &stamps));
  std::memset(stamps.mapped(), 0, 4 * 8);
  fs::StampPipeline pipeline;
  TS_OK(pipeline.init(vk->device(), stamps.get()));
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  TS_OK(vk->allocate_command_buffers(1, &cmd));
  TS_VK_ASSERT(tstest::begin(cmd));
  pipeline.record(cmd, 1);
  pipeline.record(cmd, 2);
  TS_VK_ASSERT(vkEndCommandBuffer(cmd));
  TS_OK(vk->submit_and_wait(cmd));
  const auto* t = static_cast<const std::uint64_t*>(stamps.mapped());
  EXPECT_EQ(t[0], 0u) << "slot 0 was not written";
  EXPECT_NE(t[1], 0u);
  EXPECT_GE(t[2], t[1]) << "the second stamp, recorded after a barrier, is earlier";
  EXPECT_EQ(t[3], 0u);
}

// handoff_poll.comp (the bench's CUDA -> Vulkan word) with the host as the writer: a word already at
// the target is seen at once and stamped; one below it times out and writes 0.
TEST(VulkanSide, PollShaderSeesTheWordOrTimesOut) {
  std::unique_ptr<tilesort::vkbase::Context> vk;
  const std::string no_clock = clock_context(&vk);
  if (!no_clock.empty()) GTEST_SKIP() << no_clock;
  tilesort::vkbase::Buffer stamps, word;
  TS_OK(tilesort::vkbase::Buffer::create(*vk, 4 * 8, true, &stamps));
  TS_OK(tilesort::vkbase::Buffer::create(*vk, 8, true, &word));
  std::memset(stamps.mapped(), 0xFF, 4 * 8);
  auto* w = static_cast<std::uint32_t*>(word.mapped());
  w[0] = 7;  // lo: compared with the target
  w[1] = 0;
  fs::PollPipeline pipeline;
  TS_OK(pipeline.init(vk->device(), stamps.get(), word.get()));
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  TS_OK(vk->allocate_command_buffers(1, &cmd));
  TS_VK_ASSERT(tstest::begin(cmd));
  pipeline.record(cmd, 1, 7, 1000000);  // reached: seen before the 1 s timeout
  pipeline.record(cmd, 2, 8, 1000);     // never reached: gives up after 1 ms
  TS_VK_ASSERT(vkEndCommandBuffer(cmd));
  TS_OK(vk->submit_and_wait(cmd));
  const auto* t = static_cast<const std::uint64_t*>(stamps.mapped());
  EXPECT_EQ(t[0], ~0ull) << "slot 0 was written";
  EXPECT_NE(t[1], 0u) << "the word at its target was not seen";
  EXPECT_NE(t[1], ~0ull) << "slot 1 was not written";
  EXPECT_EQ(t[2], 0u) << "a word below its target must time out and write 0";
  EXPECT_EQ(t[3], ~0ull) << "slot 3 was written";
}

}  // namespace
