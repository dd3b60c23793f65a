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
#include <vector>

#include "cuda_check.hpp"
#include "frame_shaders.hpp"
#include "stats.hpp"
#include "suites.hpp"
#include "tilesort/interop/interop.hpp"
#include "tilesort/tilesort.hpp"
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

struct LatencyRow {
  int frames = 0;
  Stats signal_to_cuda_us, cuda_to_vulkan_us, host_round_trip_us;
  Stats vulkan_to_vulkan_us, cuda_to_cuda_us;  // references: the same handoff within one API
  std::string verdict;
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

/// Handoff latency on the GPU clock (needs VK_KHR_shader_clock).
LatencyRow measure_latency(const fs::HeadlessVulkan& vk, const ti::VulkanDevice& device, int cuda_device,
                           int frames, cudaStream_t stream) {
  LatencyRow row;
  row.frames = frames;
  if (!vk.shader_clock_enabled) {
    row.verdict = "skipped: the Vulkan device has no VK_KHR_shader_clock shaderDeviceClock";
    return row;
  }
  ti::SharedBuffer stamps;
  ti::SharedTimelineSemaphore sem;
  if (!check(ti::SharedBuffer::create(device, cuda_device, kStamps * 8 * std::size_t(frames), &stamps), "stamps") ||
      !check(ti::SharedTimelineSemaphore::create(device, cuda_device, 0, &sem), "semaphore")) {
    row.verdict = "set-up failed";
    return row;
  }
  fs::StampPipeline pipeline;
  if (pipeline.init(vk.device, stamps.vk_buffer()) != VK_SUCCESS) {
    row.verdict = "timestamp pipeline failed";
    return row;
  }
  std::vector<VkCommandBuffer> cmds(4 * std::size_t(frames));
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, vk.command_pool,
                                   VK_COMMAND_BUFFER_LEVEL_PRIMARY, std::uint32_t(cmds.size())};
  if (vkAllocateCommandBuffers(vk.device, &info, cmds.data()) != VK_SUCCESS) {
    row.verdict = "command buffers failed";
    return row;
  }
  // Stamp slots per frame: 0 Vulkan before its signal, 1 CUDA start, 2 CUDA
  // end, 3 Vulkan after its wait; 4 and 5 the Vulkan -> Vulkan reference.
  const std::uint32_t vk_slot[4] = {0, 3, 4, 5};
  for (int f = 0; f < frames; ++f)
    for (int k = 0; k < 4; ++k) {
      VkCommandBuffer cmd = cmds[4 * f + k];
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      vkBeginCommandBuffer(cmd, &begin);
      pipeline.record(cmd, std::uint32_t(kStamps * f + vk_slot[k]));
      vkEndCommandBuffer(cmd);
    }
  auto* d_stamps = stamps.cuda_as<std::uint64_t>();
  std::vector<float> host_us;
  for (int f = 0; f < frames; ++f) {
    const std::uint64_t v = 5ull * f;
    const std::uint32_t slot = kStamps * std::uint32_t(f);
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = sem.vk_submit(vk.queue, {cmds[4 * f]}, v, v + 1).ok();                     // T0, signal v+1
    ok = ok && sem.cuda_wait(v + 1, stream).ok();
    ok = ok && launch_globaltimer_stamp(d_stamps, slot + 1, stream) == cudaSuccess;       // T1: CUDA starts
    ok = ok && launch_globaltimer_stamp(d_stamps, slot + 2, stream) == cudaSuccess;       // T2: CUDA's last work
    ok = ok && sem.cuda_signal(v + 2, stream).ok();
    ok = ok && sem.vk_submit(vk.queue, {cmds[4 * f + 1]}, v + 2, v + 3).ok();             // T3: Vulkan wakes
    ok = ok && sem.host_wait(v + 3, 10ull * 1000000000ull).ok();
    const auto t1 = std::chrono::steady_clock::now();
    // Reference: the same semaphore handoff between two Vulkan submissions.
    ok = ok && sem.vk_submit(vk.queue, {cmds[4 * f + 2]}, v + 3, v + 4).ok();
    ok = ok && sem.vk_submit(vk.queue, {cmds[4 * f + 3]}, v + 4, v + 5).ok();
    ok = ok && sem.host_wait(v + 5, 10ull * 1000000000ull).ok();
    if (!ok) {
      row.verdict = "handoff failed at frame " + std::to_string(f);
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      return row;
    }
    host_us.push_back(std::chrono::duration<float, std::micro>(t1 - t0).count());
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::uint64_t> t(kStamps * std::size_t(frames));
  BENCH_CUDA_CHECK(cudaMemcpy(t.data(), d_stamps, t.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<float> a, b, c, d;
  int negative = 0;
  const int skip = std::min(3, frames / 4);  // first frames pay for lazy driver set-up
  for (int f = skip; f < frames; ++f) {
    const std::uint64_t* s = &t[kStamps * std::size_t(f)];
    const std::int64_t d1 = std::int64_t(s[1] - s[0]);
    const std::int64_t d2 = std::int64_t(s[3] - s[2]);
    if (d1 < 0 || d2 < 0) ++negative;
    a.push_back(float(d1) / 1000.0f);
    b.push_back(float(d2) / 1000.0f);
    c.push_back(float(std::int64_t(s[5] - s[4])) / 1000.0f);
    d.push_back(float(std::int64_t(s[2] - s[1])) / 1000.0f);
  }
  row.vulkan_to_vulkan_us = summarize(c);
  row.cuda_to_cuda_us = summarize(d);
  host_us.erase(host_us.begin(), host_us.begin() + skip);
  row.signal_to_cuda_us = summarize(a);
  row.cuda_to_vulkan_us = summarize(b);
  row.host_round_trip_us = summarize(host_us);
  if (negative)
    row.verdict = std::to_string(negative) + " frames with negative deltas: the Vulkan and CUDA clocks differ";
  vkFreeCommandBuffers(vk.device, vk.command_pool, std::uint32_t(cmds.size()), cmds.data());
  return row;
}

int run_interop(const SuiteOptions& o) {
  std::vector<std::string> workloads = {"fixed-256", "fixed-4096", "tiles16-4M", "powerlaw"};
  int frames = 200;
  for (std::size_t i = 0; i < o.args.size(); ++i) {
    if (o.args[i] == "--workloads" && i + 1 < o.args.size()) {
      workloads.clear();
      std::stringstream list(o.args[++i]);
      for (std::string w; std::getline(list, w, ',');) workloads.push_back(w);
    } else if (o.args[i] == "--frames" && i + 1 < o.args.size()) {
      frames = std::max(8, std::atoi(o.args[++i].c_str()));
    } else {
      std::fprintf(stderr, "tilesort-bench interop: unknown option %s (takes --workloads a,b --frames N)\n",
                   o.args[i].c_str());
      return 64;
    }
  }

  fs::HeadlessVulkan vk;
  fs::HeadlessVulkan::Options vo;
  vo.interop = true;
  vo.shader_clock = true;
  std::string why;
  if (!vk.init(vo, &why)) {
    std::fprintf(stderr, "tilesort-bench interop: no Vulkan device for interop: %s\n", why.c_str());
    return kExitNoInterop;
  }
  ti::VulkanDevice device;
  int cuda_device = -1;
  ti::DeviceMatchReport match;
  if (!check(ti::check_device_support(vk.physical), "device support") ||
      !check(ti::VulkanDevice::create(vk.instance, vk.physical, vk.device, &device), "VulkanDevice") ||
      !check(ti::find_cuda_device(vk.physical, &cuda_device, &match), "device match"))
    return kExitNoInterop;
  BENCH_CUDA_CHECK(cudaSetDevice(cuda_device));
  cudaStream_t stream = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::vector<SortRow> rows;
  for (const std::string& name : workloads) {
    std::fprintf(stderr, "tilesort-bench interop: %s ...\n", name.c_str());
    rows.push_back(measure_sort(device, cuda_device, name, o, stream));
  }
  std::fprintf(stderr, "tilesort-bench interop: handoff latency, %d frames ...\n", frames);
  const LatencyRow latency = measure_latency(vk, device, cuda_device, frames, stream);
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));

  bool failed = false;
  std::ostringstream md, js;
  char line[512];
  md << "# tilesort-bench --suite interop\n\n"
     << "- commit: " << o.commit << "\n- date: " << o.date << "\n- device: " << o.device
     << "\n- Vulkan device: " << vk.device_name << " (UUID " << ti::to_string(match.vulkan_uuid) << ", CUDA #"
     << cuda_device << ")\n- command: `" << o.command_line << "`\n- method: u32 keys + u32 values, one tilesort "
     << "workspace; shared (VkBuffer memory imported into CUDA) and cudaMalloc timed alternately; median of "
     << o.reps << " after " << o.warmup << " warm-ups; copy = cudaMemcpyAsync D2D of the same key+value bytes.\n\n"
     << "## Sort in shared memory vs cudaMalloc (target: shared / cudaMalloc <= 1.03)\n\n"
     << "| workload | items | segments | copy ms | cudaMalloc ms (x copy) | shared ms (x copy) | shared / cudaMalloc |\n"
     << "|---|---|---|---|---|---|---|\n";
  js << "{\n  \"suite\": \"interop\",\n  \"commit\": \"" << o.commit << "\",\n  \"date\": \"" << o.date
     << "\",\n  \"device\": \"" << o.device << "\",\n  \"vulkan_device\": \"" << vk.device_name
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
  if (!latency.verdict.empty() && latency.signal_to_cuda_us.median == 0) {
    md << latency.verdict << "\n";
    js << "{\"skipped\": \"" << latency.verdict << "\"}";
    if (latency.verdict.rfind("skipped", 0) != 0) failed = true;
  } else {
    md << "| handoff | median us | min us | max us |\n|---|---|---|---|\n";
    auto add = [&](const char* what, const Stats& s) {
      std::snprintf(line, sizeof line, "| %s | %.1f | %.1f | %.1f |\n", what, s.median, s.min, s.max);
      md << line;
    };
    add("Vulkan signal -> CUDA start", latency.signal_to_cuda_us);
    add("CUDA end -> Vulkan wakes", latency.cuda_to_vulkan_us);
    add("host: submit -> vkWaitSemaphores returns (whole round trip)", latency.host_round_trip_us);
    add("reference: Vulkan submit -> next Vulkan submit waiting on the same semaphore", latency.vulkan_to_vulkan_us);
    add("reference: CUDA kernel -> next kernel on the stream", latency.cuda_to_cuda_us);
    md << "\n" << latency.frames << " frames (the first few dropped as warm-up). Vulkan's clockRealtimeEXT and CUDA's "
       << "%globaltimer are the same clock on NVIDIA; a stamp is taken by a one-thread dispatch/kernel, so each "
       << "figure includes one small launch.\n";
    if (!latency.verdict.empty()) {
      md << "\nWARNING: " << latency.verdict << "\n";
      failed = true;
    }
    std::snprintf(line, sizeof line,
                  "{\"frames\": %d, \"signal_to_cuda_us\": %.2f, \"cuda_to_vulkan_us\": %.2f, "
                  "\"host_round_trip_us\": %.2f, \"vulkan_to_vulkan_us\": %.2f, \"cuda_to_cuda_us\": %.2f}",
                  latency.frames, latency.signal_to_cuda_us.median, latency.cuda_to_vulkan_us.median,
                  latency.host_round_trip_us.median, latency.vulkan_to_vulkan_us.median,
                  latency.cuda_to_cuda_us.median);
    js << line;
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
