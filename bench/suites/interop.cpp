// tilesort-bench --suite interop: what sharing buffers with Vulkan costs.
//
//  1. Sort in a shared buffer vs the same sort in cudaMalloc memory. The same
//     tilesort call and workspace sorts keys + values that live (a) in a
//     VkBuffer's memory imported into CUDA and (b) in cudaMalloc memory. The
//     two are timed alternately, rep by rep, with the unsorted input restored
//     before each rep outside the timed region. Both outputs are verified
//     first. Target: shared within 3% of cudaMalloc. Both are also given as
//     x copy (a device-to-device copy of the same bytes, same run).
//  2. Handoff latency per frame, on the GPU's own clock: a Vulkan shader
//     stamps the real-time clock and signals V; CUDA waits V and a kernel
//     stamps %globaltimer (Vulkan signal -> CUDA start). A second kernel
//     stamps, CUDA signals V+1, and a Vulkan shader waiting on V+1 stamps
//     (CUDA end -> Vulkan wakes). One frame in flight at a time; the host
//     round trip (first submit to vkWaitSemaphores returning) is reported
//     too.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.hpp"
#include "frame_shaders.hpp"
#include "provenance.hpp"
#include "stats.hpp"
#include "suites.hpp"
#include "tilesort/interop/interop.hpp"
#include "tilesort/tilesort.hpp"
#include "tilesort/vkbase/context.hpp"
#include "tilesort/vkbase/resources.hpp"
#include "timing.hpp"
#include "verify.hpp"
#include "workloads.hpp"

namespace bench {
cudaError_t launch_globaltimer_stamp(std::uint64_t* stamps, std::uint32_t slot, cudaStream_t stream);

namespace {
namespace ti = tilesort::interop;
namespace fs = tilesort::frame_shaders;

constexpr int kExitFailed = 1;
constexpr int kExitNoInterop = 2;
constexpr std::uint32_t kStamps = 6;  // timestamps per latency frame

bool check(const tilesort::Status& s, const char* what) {
  if (s.ok()) return true;
  std::fprintf(stderr, "tilesort-bench interop: %s: %s\n", what, s.what());
  return false;
}

struct SortRow {
  std::string workload;
  std::uint64_t items = 0, segments = 0;
  double copy_ms = 0, malloc_ms = 0, shared_ms = 0;
  std::string verdict;  // empty = verified
};

/// One workload: shared vs cudaMalloc, alternating reps.
SortRow measure_sort(const ti::VulkanDevice& device, int cuda_device, const std::string& name,
                     const SuiteOptions& o, cudaStream_t stream) {
  SortRow row;
  row.workload = name;
  const Workload w = make_workload(name);
  HostProblem problem;
  problem.key = KeyKind::u32;
  problem.offsets = &w.offsets;
  problem.keys.resize(std::size_t(w.items()) * 4);
  generate_keys(w, KeyKind::u32, problem.keys.data());
  problem.values.resize(w.items());
  for (std::uint32_t i = 0; i < w.items(); ++i) problem.values[i] = i;
  compute_reference(problem);
  row.items = w.items();
  row.segments = w.segments();
  const std::size_t key_bytes = std::size_t(w.items()) * 4;

  ti::SharedBuffer shared_keys, shared_values;
  if (!check(ti::SharedBuffer::create(device, cuda_device, key_bytes, &shared_keys), "shared keys") ||
      !check(ti::SharedBuffer::create(device, cuda_device, key_bytes, &shared_values), "shared values")) {
    row.verdict = "could not create shared buffers";
    return row;
  }
  DeviceBuffer malloc_keys(key_bytes), malloc_values(key_bytes), pristine_keys(key_bytes),
      pristine_values(key_bytes), offsets(w.offsets.size() * 4), copy_dst(2 * key_bytes);
  BENCH_CUDA_CHECK(cudaMemcpy(pristine_keys.get(), problem.keys.data(), key_bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(pristine_values.get(), problem.values.data(), key_bytes, cudaMemcpyHostToDevice));
  BENCH_CUDA_CHECK(cudaMemcpy(offsets.get(), w.offsets.data(), w.offsets.size() * 4, cudaMemcpyHostToDevice));

  tilesort::SortPlan plan;
  plan.value_type = tilesort::ValueType::b32;
  plan.max_items = w.items();
  plan.max_segments = w.segments();
  std::size_t ws_bytes = 0;
  if (!check(tilesort::segmented_sort_workspace_size(plan, &ws_bytes), "workspace size")) {
    row.verdict = "workspace query failed";
    return row;
  }
  DeviceBuffer workspace(ws_bytes);
  void* keys[2] = {shared_keys.cuda_ptr(), malloc_keys.get()};
  void* values[2] = {shared_values.cuda_ptr(), malloc_values.get()};
  auto restore = [&](int which) {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(keys[which], pristine_keys.get(), key_bytes, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(values[which], pristine_values.get(), key_bytes, cudaMemcpyDeviceToDevice, stream));
  };
  auto sort = [&](int which) {
    tilesort::SortArgs args;
    args.keys = keys[which];
    args.values = values[which];
    args.offsets = offsets.get();
    args.num_segments = w.segments();
    return tilesort::segmented_sort(workspace.get(), ws_bytes, plan, args, stream);
  };
  // Verify both before timing.
  for (int which = 0; which < 2; ++which) {
    restore(which);
    if (!check(sort(which), "segmented_sort") || !check(tilesort::read_device_status(workspace.get(), stream), "device status")) {
      row.verdict = "sort failed";
      return row;
    }
    std::vector<std::byte> out_keys(key_bytes);
    std::vector<Value> out_values(w.items());
    BENCH_CUDA_CHECK(cudaMemcpy(out_keys.data(), keys[which], key_bytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA_CHECK(cudaMemcpy(out_values.data(), values[which], key_bytes, cudaMemcpyDeviceToHost));
    const std::string v = verify_sorted(problem, out_keys.data(), out_values.data(), true);
    if (!v.empty()) {
      row.verdict = std::string(which == 0 ? "shared: " : "cudaMalloc: ") + v;
      return row;
    }
  }
  EventTimer timer;
  std::vector<float> t_shared, t_malloc, t_copy;
  for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
    // Alternate which goes first so neither always follows the copy.
    for (int k = 0; k < 2; ++k) {
      const int which = (rep + k) % 2;
      restore(which);
      timer.start(stream);
      if (!sort(which).ok()) {
        row.verdict = "sort failed while timing";
        return row;
      }
      timer.stop(stream);
      const float ms = timer.elapsed_ms();
      if (rep >= o.warmup) (which == 0 ? t_shared : t_malloc).push_back(ms);
    }
    timer.start(stream);
    BENCH_CUDA_CHECK(cudaMemcpyAsync(copy_dst.get(), pristine_keys.get(), key_bytes, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(copy_dst.get()) + key_bytes, pristine_values.get(), key_bytes,
                                     cudaMemcpyDeviceToDevice, stream));
    timer.stop(stream);
    const float ms = timer.elapsed_ms();
    if (rep >= o.warmup) t_copy.push_back(ms);
  }
  row.shared_ms = summarize(t_shared).median;
  row.malloc_ms = summarize(t_malloc).median;
  row.copy_ms = summarize(t_copy).median;
  return row;
}

/// One way of handing a frame from Vulkan to CUDA and back.
struct HandoffMode {
  const char* name;
  bool v2c_word;   // Vulkan -> CUDA: SharedWord + cuStreamWaitValue64 (else the semaphore)
  bool c2v_word;   // CUDA -> Vulkan: cuStreamWriteValue64 + a polling shader (else the semaphore)
  bool prequeued;  // everything enqueued behind a host-opened gate before the GPU starts
};
constexpr HandoffMode kModes[] = {
    {"semaphore both ways, serial submission (today's default)", false, false, false},
    {"semaphore both ways, prequeued behind a gate", false, false, true},
    {"memory word Vulkan->CUDA, semaphore back, serial", true, false, false},
    {"memory word Vulkan->CUDA, semaphore back, prequeued", true, false, true},
    {"memory word both ways (polling shader), serial", true, true, false},
    {"memory word both ways (polling shader), prequeued", true, true, true},
};
constexpr std::uint32_t kPollTimeoutUs = 50000;

struct HandoffRow {
  const HandoffMode* mode = nullptr;
  int frames = 0;
  Stats v2c_us, c2v_us, round_trip_us, enqueue_us;
  int timeouts = 0, negative = 0;
  std::string verdict;  // empty: measured
};

/// Per frame, one frame in flight: Vulkan stamps T0 and hands over; CUDA
/// stamps T1 when it starts and T2 at its end and hands back; Vulkan stamps
/// T3 when it wakes. V->C = T1 - T0, C->V = T3 - T2, on the GPU's real-time
/// clock. "Prequeued": batch A first waits for a Vulkan-only gate semaphore
/// that a helper thread opens 2 ms after A is submitted, so every CUDA and
/// Vulkan command of the frame is already enqueued when the GPU starts: the
/// figures then hold no host enqueue time. The thread also means that a
/// driver which blocks the host inside a CUDA call until the Vulkan signal
/// happens cannot deadlock the run; "enqueue" (host time of the CUDA calls)
/// shows whether it did.
HandoffRow measure_handoff(const tilesort::vkbase::Context& vk, const ti::VulkanDevice& device, int cuda_device,
                           const HandoffMode& mode, int frames, cudaStream_t stream) {
  HandoffRow row;
  row.mode = &mode;
  row.frames = frames;
  ti::SharedBuffer stamps;
  ti::SharedTimelineSemaphore sem;
  ti::SharedWord v2c, c2v;
  if (!check(ti::SharedBuffer::create(device, cuda_device, kStamps * 8 * std::size_t(frames), &stamps), "stamps") ||
      !check(ti::SharedTimelineSemaphore::create(device, cuda_device, 0, &sem), "semaphore")) {
    row.verdict = "set-up failed";
    return row;
  }
  if (mode.v2c_word || mode.c2v_word) {
    const tilesort::Status st = ti::SharedWord::create(device, cuda_device, &v2c);
    if (!st.ok() || !check(ti::SharedWord::create(device, cuda_device, &c2v), "memory word")) {
      row.verdict = std::string("skipped: no memory word: ") + st.what();
      return row;
    }
  }
  tilesort::vkbase::Semaphore gate_owner;
  if (!tilesort::vkbase::create_semaphore(vk.device(), /*timeline*/ true, &gate_owner).ok()) {
    row.verdict = "gate semaphore failed";
    return row;
  }
  const VkSemaphore gate = gate_owner.get();
  fs::StampPipeline stamp;
  fs::PollPipeline poll;
  if (!stamp.init(vk.device(), stamps.vk_buffer()).ok() ||
      (mode.c2v_word && !poll.init(vk.device(), stamps.vk_buffer(), c2v.vk_buffer()).ok())) {
    row.verdict = "pipelines failed";
    return row;
  }
  std::vector<VkCommandBuffer> cmds(2 * std::size_t(frames));
  if (!vk.allocate_command_buffers(std::uint32_t(cmds.size()), cmds.data()).ok()) {
    row.verdict = "command buffers failed";
    return row;
  }
  // Values per frame: v = 4f; A signals v+1 (and writes v+1 into v2c), CUDA
  // signals v+2 (or writes v+2 into c2v), B signals v+3.
  for (int f = 0; f < frames; ++f) {
    const std::uint64_t v = 4ull * std::uint64_t(f);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkCommandBuffer a = cmds[2 * f], b = cmds[2 * f + 1];
    vkBeginCommandBuffer(a, &begin);
    stamp.record(a, std::uint32_t(kStamps * f + 0));
    if (mode.v2c_word) v2c.record_vk_write(a, v + 1);
    vkEndCommandBuffer(a);
    vkBeginCommandBuffer(b, &begin);
    if (mode.c2v_word) poll.record(b, std::uint32_t(kStamps * f + 3), std::uint32_t(v + 2), kPollTimeoutUs);
    else stamp.record(b, std::uint32_t(kStamps * f + 3));
    vkEndCommandBuffer(b);
  }
  auto* d_stamps = stamps.cuda_as<std::uint64_t>();
  BENCH_CUDA_CHECK(cudaMemsetAsync(d_stamps, 0, kStamps * 8 * std::size_t(frames), stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> host_us, enqueue_us;
  for (int f = 0; f < frames; ++f) {
    const std::uint64_t v = 4ull * std::uint64_t(f);
    const std::uint32_t slot = kStamps * std::uint32_t(f);
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = true;
    // Batch A: [gate f+1 when prequeued] -> stamp T0 [-> word v+1] -> signal v+1.
    {
      // The previous frame's B signalled v - 1 (nothing before frame 0).
      const std::uint64_t wait_values[2] = {f ? v - 1 : 0, std::uint64_t(f) + 1};
      const VkSemaphore waits[2] = {sem.vk_semaphore(), gate};
      const VkPipelineStageFlags stages[2] = {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
      const std::uint64_t signal_value = v + 1;
      const VkSemaphore signal = sem.vk_semaphore();
      VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
      timeline.waitSemaphoreValueCount = mode.prequeued ? 2 : 1;
      timeline.pWaitSemaphoreValues = wait_values;
      timeline.signalSemaphoreValueCount = 1;
      timeline.pSignalSemaphoreValues = &signal_value;
      VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      submit.pNext = &timeline;
      submit.waitSemaphoreCount = mode.prequeued ? 2 : 1;
      submit.pWaitSemaphores = waits;
      submit.pWaitDstStageMask = stages;
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &cmds[2 * f];
      submit.signalSemaphoreCount = 1;
      submit.pSignalSemaphores = &signal;
      ok = vkQueueSubmit(vk.queue(), 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS && sem.declare_vulkan_signal(v + 1).ok();
    }
    std::thread opener;
    if (ok && mode.prequeued)
      opener = std::thread([&vk, gate, f] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        signal.semaphore = gate;
        signal.value = std::uint64_t(f) + 1;
        (void)vkSignalSemaphore(vk.device(), &signal);
      });
    const auto e0 = std::chrono::steady_clock::now();
    ok = ok && (mode.v2c_word ? sem.cuda_wait_word(v2c, v + 1, stream) : sem.cuda_wait(v + 1, stream)).ok();
    ok = ok && launch_globaltimer_stamp(d_stamps, slot + 1, stream) == cudaSuccess;  // T1: CUDA starts
    ok = ok && launch_globaltimer_stamp(d_stamps, slot + 2, stream) == cudaSuccess;  // T2: CUDA's last work
    const auto e1 = std::chrono::steady_clock::now();
    if (mode.c2v_word) {
      ok = ok && c2v.cuda_write(v + 2, stream).ok();
      ok = ok && sem.vk_submit(vk.queue(), {cmds[2 * f + 1]}, 0, v + 3).ok();  // B polls the word, no semaphore wait
    } else {
      ok = ok && sem.cuda_signal(v + 2, stream).ok();
      ok = ok && sem.vk_submit(vk.queue(), {cmds[2 * f + 1]}, v + 2, v + 3).ok();
    }
    ok = ok && sem.host_wait(v + 3, 10ull * 1000000000ull).ok();
    if (opener.joinable()) opener.join();
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok) {
      row.verdict = "handoff failed at frame " + std::to_string(f);
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      return row;
    }
    // Serial submission: the whole host round trip. Prequeued: it holds the 2 ms gate, so it is not reported.
    host_us.push_back(std::chrono::duration<float, std::micro>(t1 - t0).count());
    enqueue_us.push_back(std::chrono::duration<float, std::micro>(e1 - e0).count());
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::uint64_t> t(kStamps * std::size_t(frames));
  BENCH_CUDA_CHECK(cudaMemcpy(t.data(), d_stamps, t.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<float> a, b;
  const int skip = std::min(3, frames / 4);  // first frames pay for lazy driver set-up
  for (int f = skip; f < frames; ++f) {
    const std::uint64_t* s = &t[kStamps * std::size_t(f)];
    if (s[3] == 0) {
      ++row.timeouts;
      continue;
    }
    const std::int64_t d1 = std::int64_t(s[1] - s[0]), d2 = std::int64_t(s[3] - s[2]);
    if (d1 < 0 || d2 < 0) ++row.negative;
    a.push_back(float(d1) / 1000.0f);
    b.push_back(float(d2) / 1000.0f);
  }
  host_us.erase(host_us.begin(), host_us.begin() + skip);
  enqueue_us.erase(enqueue_us.begin(), enqueue_us.begin() + skip);
  if (!a.empty()) {
    row.v2c_us = summarize(a);
    row.c2v_us = summarize(b);
  }
  row.round_trip_us = summarize(host_us);
  row.enqueue_us = summarize(enqueue_us);
  vkFreeCommandBuffers(vk.device(), vk.command_pool(), std::uint32_t(cmds.size()), cmds.data());
  return row;
}

/// The references: the measurement's own floor and the same handoff inside one API.
struct ReferenceRow {
  Stats stamp_floor_us;     // two stamps in one Vulkan command buffer (barrier between)
  Stats vulkan_to_vulkan_us;  // stamp, signal -> next submission waiting on the same semaphore, stamp
  Stats cuda_to_cuda_us;    // stamp kernel -> next stamp kernel on the stream
  std::string verdict;
};

ReferenceRow measure_references(const tilesort::vkbase::Context& vk, const ti::VulkanDevice& device, int cuda_device,
                                int frames, cudaStream_t stream) {
  ReferenceRow row;
  ti::SharedBuffer stamps;
  ti::SharedTimelineSemaphore sem;
  if (!check(ti::SharedBuffer::create(device, cuda_device, kStamps * 8 * std::size_t(frames), &stamps), "stamps") ||
      !check(ti::SharedTimelineSemaphore::create(device, cuda_device, 0, &sem), "semaphore")) {
    row.verdict = "set-up failed";
    return row;
  }
  fs::StampPipeline stamp;
  if (!stamp.init(vk.device(), stamps.vk_buffer()).ok()) {
    row.verdict = "pipeline failed";
    return row;
  }
  std::vector<VkCommandBuffer> cmds(3 * std::size_t(frames));
  if (!vk.allocate_command_buffers(std::uint32_t(cmds.size()), cmds.data()).ok()) {
    row.verdict = "command buffers failed";
    return row;
  }
  for (int f = 0; f < frames; ++f) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    const std::uint32_t base = kStamps * std::uint32_t(f);
    vkBeginCommandBuffer(cmds[3 * f], &begin);
    stamp.record(cmds[3 * f], base + 0);
    stamp.record(cmds[3 * f], base + 1);  // floor: stamp -> barrier -> stamp
    vkEndCommandBuffer(cmds[3 * f]);
    vkBeginCommandBuffer(cmds[3 * f + 1], &begin);
    stamp.record(cmds[3 * f + 1], base + 2);
    vkEndCommandBuffer(cmds[3 * f + 1]);
    vkBeginCommandBuffer(cmds[3 * f + 2], &begin);
    stamp.record(cmds[3 * f + 2], base + 3);
    vkEndCommandBuffer(cmds[3 * f + 2]);
  }
  auto* d_stamps = stamps.cuda_as<std::uint64_t>();
  for (int f = 0; f < frames; ++f) {
    const std::uint64_t v = 3ull * std::uint64_t(f);
    const std::uint32_t slot = kStamps * std::uint32_t(f);
    bool ok = sem.vk_submit(vk.queue(), {cmds[3 * f]}, v, v + 1).ok();
    ok = ok && sem.vk_submit(vk.queue(), {cmds[3 * f + 1]}, v + 1, v + 2).ok();
    ok = ok && sem.vk_submit(vk.queue(), {cmds[3 * f + 2]}, v + 2, v + 3).ok();
    ok = ok && sem.host_wait(v + 3, 10ull * 1000000000ull).ok();
    ok = ok && launch_globaltimer_stamp(d_stamps, slot + 4, stream) == cudaSuccess;
    ok = ok && launch_globaltimer_stamp(d_stamps, slot + 5, stream) == cudaSuccess;
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (!ok) {
      row.verdict = "reference failed at frame " + std::to_string(f);
      return row;
    }
  }
  std::vector<std::uint64_t> t(kStamps * std::size_t(frames));
  BENCH_CUDA_CHECK(cudaMemcpy(t.data(), d_stamps, t.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<float> floor_us, v2v, c2c;
  for (int f = std::min(3, frames / 4); f < frames; ++f) {
    const std::uint64_t* s = &t[kStamps * std::size_t(f)];
    floor_us.push_back(float(std::int64_t(s[1] - s[0])) / 1000.0f);
    v2v.push_back(float(std::int64_t(s[3] - s[2])) / 1000.0f);
    c2c.push_back(float(std::int64_t(s[5] - s[4])) / 1000.0f);
  }
  row.stamp_floor_us = summarize(floor_us);
  row.vulkan_to_vulkan_us = summarize(v2v);
  row.cuda_to_cuda_us = summarize(c2c);
  vkFreeCommandBuffers(vk.device(), vk.command_pool(), std::uint32_t(cmds.size()), cmds.data());
  return row;
}

int run_interop(const SuiteOptions& o) {
  std::vector<std::string> workloads = {"fixed-256", "fixed-4096", "tiles16-4M", "powerlaw"};
  int frames = 200;
  bool handoff_only = false;
  for (std::size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--workloads" && i + 1 < o.args.size()) {
      workloads.clear();
      std::stringstream list(o.args[++i]);
      for (std::string w; std::getline(list, w, ',');) workloads.push_back(w);
    } else if (o.args[i] == "--frames" && i + 1 < o.args.size()) {
      frames = std::max(8, std::atoi(o.args[++i].c_str()));
    } else if (o.args[i] == "--handoff-only") {
      handoff_only = true;
    } else {
      std::fprintf(stderr, "tilesort-bench interop: unknown option %s (takes --workloads a,b --frames N "
                   "--handoff-only)\n",
                   o.args[i].c_str());
      return 64;
    }
  }

  tilesort::vkbase::Context vk;
  tilesort::vkbase::ComputeContextOptions vo;
  vo.app_name = "tilesort-bench";
  vo.device.extensions = ti::device_extensions();
  vo.device.timeline_semaphore = tilesort::vkbase::Want::required;
  vo.device.shader_device_clock = tilesort::vkbase::Want::if_offered;
  const tilesort::Status made = tilesort::vkbase::create_compute_context(vo, &vk);
  if (!made.ok()) {
    std::fprintf(stderr, "tilesort-bench interop: no Vulkan device for interop: %s\n", made.what());
    return kExitNoInterop;
  }
  ti::VulkanDevice device;
  int cuda_device = -1;
  ti::DeviceMatchReport match;
  if (!check(ti::check_device_support(vk.physical()), "device support") ||
      !check(ti::VulkanDevice::create(vk.instance(), vk.physical(), vk.device(), &device), "VulkanDevice") ||
      !check(ti::find_cuda_device(vk.physical(), &cuda_device, &match), "device match"))
    return kExitNoInterop;
  BENCH_CUDA_CHECK(cudaSetDevice(cuda_device));
  cudaStream_t stream = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::vector<SortRow> rows;
  if (handoff_only) workloads.clear();
  for (const std::string& name : workloads) {
    std::fprintf(stderr, "tilesort-bench interop: %s ...\n", name.c_str());
    rows.push_back(measure_sort(device, cuda_device, name, o, stream));
  }
  std::vector<HandoffRow> handoffs;
  ReferenceRow reference;
  if (vk.shader_clock_enabled()) {
    for (const HandoffMode& mode : kModes) {
      std::fprintf(stderr, "tilesort-bench interop: handoff %s, %d frames ...\n", mode.name, frames);
      handoffs.push_back(measure_handoff(vk, device, cuda_device, mode, frames, stream));
    }
    std::fprintf(stderr, "tilesort-bench interop: references, %d frames ...\n", frames);
    reference = measure_references(vk, device, cuda_device, frames, stream);
  }
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));

  bool failed = false;
  std::ostringstream md, js;
  char line[512];
  md << "# tilesort-bench --suite interop\n\n"
     << provenance_items(o.commit, o.date, o.device) << "- Vulkan device: " << vk.device_name() << " (UUID " << ti::to_string(match.vulkan_uuid) << ", CUDA #"
     << cuda_device << ")\n- command: `" << o.command_line << "`\n- method: u32 keys + u32 values, one tilesort "
     << "workspace; shared (VkBuffer memory imported into CUDA) and cudaMalloc timed alternately; median of "
     << o.reps << " after " << o.warmup << " warm-ups; copy = cudaMemcpyAsync D2D of the same key+value bytes.\n\n"
     << "## Sort in shared memory vs cudaMalloc (target: shared / cudaMalloc <= 1.03)\n\n"
     << "| workload | items | segments | copy ms | cudaMalloc ms (x copy) | shared ms (x copy) | shared / cudaMalloc |\n"
     << "|---|---|---|---|---|---|---|\n";
  js << "{\n  \"suite\": \"interop\",\n  \"commit\": \"" << o.commit << "\",\n  \"date\": \"" << o.date
     << "\",\n  \"device\": \"" << o.device << "\",\n  \"vulkan_device\": \"" << vk.device_name()
     << "\",\n  \"reps\": " << o.reps << ",\n  \"warmup\": " << o.warmup << ",\n  \"sort\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SortRow& r = rows[i];
    if (!r.verdict.empty()) {
      failed = true;
      md << "| " << r.workload << " | " << r.items << " | " << r.segments << " | FAILED: " << r.verdict
         << " | | | |\n";
      js << (i ? "," : "") << "\n    {\"workload\": \"" << r.workload << "\", \"failed\": true}";
      continue;
    }
    const double ratio = r.shared_ms / r.malloc_ms;
    std::snprintf(line, sizeof line, "| %s | %" PRIu64 " | %" PRIu64 " | %.3f | %.3f (%.2fx) | %.3f (%.2fx) | %.3f%s |\n",
                  r.workload.c_str(), r.items, r.segments, r.copy_ms, r.malloc_ms, r.malloc_ms / r.copy_ms,
                  r.shared_ms, r.shared_ms / r.copy_ms, ratio, ratio <= 1.03 ? "" : " (over target)");
    md << line;
    std::snprintf(line, sizeof line,
                  "%s\n    {\"workload\": \"%s\", \"items\": %" PRIu64 ", \"segments\": %" PRIu64
                  ", \"copy_ms\": %.5f, \"malloc_ms\": %.5f, \"shared_ms\": %.5f, \"shared_over_malloc\": %.4f, "
                  "\"malloc_x_copy\": %.3f, \"shared_x_copy\": %.3f}",
                  i ? "," : "", r.workload.c_str(), r.items, r.segments, r.copy_ms, r.malloc_ms, r.shared_ms, ratio,
                  r.malloc_ms / r.copy_ms, r.shared_ms / r.copy_ms);
    js << line;
  }
  js << "\n  ],\n  \"handoff\": ";
  md << "\n## Handoff latency per frame (GPU real-time clock, one frame in flight)\n\n";
  if (!vk.shader_clock_enabled()) {
    md << "skipped: the Vulkan device has no VK_KHR_shader_clock shaderDeviceClock\n";
    js << "{\"skipped\": \"no shaderDeviceClock\"}";
  } else {
    md << "| mode | Vulkan -> CUDA median us (min, max) | CUDA -> Vulkan median us (min, max) | host round trip us "
          "| host time in the CUDA enqueue calls us (max) | notes |\n|---|---|---|---|---|---|\n";
    js << "{\n    \"frames\": " << frames << ",\n    \"modes\": [";
    for (std::size_t i = 0; i < handoffs.size(); ++i) {
      const HandoffRow& h = handoffs[i];
      const bool skipped = h.verdict.rfind("skipped", 0) == 0;
      if (!h.verdict.empty()) {
        md << "| " << h.mode->name << " | " << h.verdict << " | | | | |\n";
        if (!skipped) failed = true;
        js << (i ? "," : "") << "\n      {\"mode\": \"" << h.mode->name << "\", \"verdict\": \"" << h.verdict << "\"}";
        continue;
      }
      std::string notes;
      if (h.timeouts) notes += std::to_string(h.timeouts) + " frames: the polling shader timed out (50 ms); ";
      if (h.negative) notes += std::to_string(h.negative) + " frames with negative deltas; ";
      if (h.mode->prequeued) notes += "round trip holds the 2 ms gate; ";
      std::snprintf(line, sizeof line, "| %s | %.1f (%.1f, %.1f) | %.1f (%.1f, %.1f) | %.1f | %.1f (%.1f) | %s |\n",
                    h.mode->name, h.v2c_us.median, h.v2c_us.min, h.v2c_us.max, h.c2v_us.median, h.c2v_us.min,
                    h.c2v_us.max, h.round_trip_us.median, h.enqueue_us.median, h.enqueue_us.max, notes.c_str());
      md << line;
      std::snprintf(line, sizeof line,
                    "%s\n      {\"mode\": \"%s\", \"v2c_word\": %s, \"c2v_word\": %s, \"prequeued\": %s, "
                    "\"v2c_us\": %.2f, \"c2v_us\": %.2f, \"v2c_min_us\": %.2f, \"c2v_min_us\": %.2f, "
                    "\"host_round_trip_us\": %.2f, \"enqueue_us\": %.2f, \"enqueue_max_us\": %.2f, "
                    "\"timeouts\": %d, \"negative\": %d}",
                    i ? "," : "", h.mode->name, h.mode->v2c_word ? "true" : "false",
                    h.mode->c2v_word ? "true" : "false", h.mode->prequeued ? "true" : "false", h.v2c_us.median,
                    h.c2v_us.median, h.v2c_us.min, h.c2v_us.min, h.round_trip_us.median, h.enqueue_us.median,
                    h.enqueue_us.max, h.timeouts, h.negative);
      js << line;
    }
    js << "\n    ],\n    \"references\": ";
    md << "\n| reference (the measurement's own cost) | median us | min us | max us |\n|---|---|---|---|\n";
    if (!reference.verdict.empty()) {
      md << "| " << reference.verdict << " | | | |\n";
      failed = true;
      js << "{\"verdict\": \"" << reference.verdict << "\"}";
    } else {
      auto add = [&](const char* what, const Stats& st) {
        std::snprintf(line, sizeof line, "| %s | %.1f | %.1f | %.1f |\n", what, st.median, st.min, st.max);
        md << line;
      };
      add("empty handoff: stamp -> barrier -> stamp in one Vulkan command buffer", reference.stamp_floor_us);
      add("Vulkan submit -> next Vulkan submit waiting on the same semaphore", reference.vulkan_to_vulkan_us);
      add("CUDA stamp kernel -> next kernel on the stream", reference.cuda_to_cuda_us);
      std::snprintf(line, sizeof line,
                    "{\"stamp_floor_us\": %.2f, \"vulkan_to_vulkan_us\": %.2f, \"cuda_to_cuda_us\": %.2f}",
                    reference.stamp_floor_us.median, reference.vulkan_to_vulkan_us.median,
                    reference.cuda_to_cuda_us.median);
      js << line;
    }
    js << "\n  }";
    md << "\n" << frames << " frames per mode (the first few dropped as warm-up). Vulkan's clockRealtimeEXT and "
       << "CUDA's %globaltimer are the same clock on NVIDIA; a stamp is a one-thread dispatch/kernel, so each figure "
       << "includes one small launch (see the references). Serial: each API's commands are enqueued after the "
       << "previous step's were; prequeued: the whole frame is enqueued behind a gate a helper thread opens 2 ms "
       << "later, so the GPU figures hold no host enqueue time. Memory word: Vulkan writes a 64-bit word "
       << "(vkCmdUpdateBuffer after a barrier) that CUDA's cuStreamWaitValue64 waits on; back, "
       << "cuStreamWriteValue64 and a one-thread Vulkan shader polling the word (50 ms timeout).\n";
  }
  js << ",\n  \"failed\": " << (failed ? "true" : "false") << "\n}\n";
  std::printf("%s", md.str().c_str());
  const bool written = write_suite_reports(o.out, md.str(), js.str());
  return failed || !written ? kExitFailed : 0;
}

}  // namespace
}  // namespace bench

TILESORT_BENCH_SUITE("interop", "sort in Vulkan-shared memory vs cudaMalloc, and the semaphore handoff latency",
                     bench::run_interop);
