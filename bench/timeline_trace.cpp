#include "timeline_trace.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#if TILESORT_BENCH_HAVE_CUPTI
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>
#endif

namespace bench {

#if TILESORT_BENCH_HAVE_CUPTI
namespace {

/// The few CUPTI entry points the trace needs, resolved from the library.
struct Cupti {
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  std::string error;  // empty: loaded and registered

  static Cupti load() {
    Cupti c;
    void* lib = nullptr;
    std::string tried;
    std::vector<std::string> names;
    if (const char* path = std::getenv("TILESORT_BENCH_CUPTI")) names.push_back(path);
    names.push_back("libcupti.so.13");
    names.push_back("libcupti.so");
    for (const std::string& name : names) {
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
      tried += (tried.empty() ? "" : ", ") + name;
    }
    if (lib == nullptr) {
      c.error = "CUPTI not found (tried " + tried + "; set TILESORT_BENCH_CUPTI to libcupti.so's path)";
      return c;
    }
    auto resolve = [&](auto& fn, const char* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
      if (fn == nullptr && c.error.empty()) c.error = std::string("CUPTI lacks ") + symbol;
    };
    resolve(c.get_version, "cuptiGetVersion");
    resolve(c.register_callbacks, "cuptiActivityRegisterCallbacks");
    resolve(c.enable, "cuptiActivityEnable");
    resolve(c.disable, "cuptiActivityDisable");
    resolve(c.flush_all, "cuptiActivityFlushAll");
    resolve(c.next_record, "cuptiActivityGetNextRecord");
    if (!c.error.empty()) return c;
    // The records are read through this build's structs: same major version only.
    std::uint32_t version = 0;
    if (c.get_version(&version) != CUPTI_SUCCESS || version / 10000 != CUPTI_API_VERSION / 10000) {
      c.error = "CUPTI API version " + std::to_string(version) + ", built against " +
                std::to_string(CUPTI_API_VERSION);
      return c;
    }
    if (c.register_callbacks(&buffer_requested, &buffer_completed) != CUPTI_SUCCESS)
      c.error = "cuptiActivityRegisterCallbacks failed";
    return c;
  }

  static Cupti& get() {
    static Cupti c = load();
    return c;
  }

  // Completed buffers are parsed into `spans` (CUPTI may call back from its own thread).
  static std::mutex mutex;
  static std::vector<TimelineSpan> spans;

  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    constexpr std::size_t kBytes = std::size_t(4) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBytes));
    *size = *buffer != nullptr ? kBytes : 0;
    *max_records = 0;  // as many as fit
  }

  static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    Cupti& c = get();
    CUpti_Activity* record = nullptr;
    std::vector<TimelineSpan> parsed;
    while (c.next_record != nullptr && c.next_record(buffer, valid, &record) == CUPTI_SUCCESS)
      parsed.push_back(to_span(record));
    std::free(buffer);
    std::lock_guard<std::mutex> lock(mutex);
    for (TimelineSpan& s : parsed)
      if (s.end_ns != 0) spans.push_back(std::move(s));
  }

  static TimelineSpan to_span(const CUpti_Activity* record) {
    TimelineSpan s;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      s.kind = SpanKind::kernel;
      int status = 0;
      char* demangled = abi::__cxa_demangle(k->name, nullptr, nullptr, &status);
      s.name = status == 0 && demangled != nullptr ? demangled : (k->name != nullptr ? k->name : "?");
      std::free(demangled);
      s.start_ns = k->start;
      s.end_ns = k->end;
      s.grid = std::uint32_t(k->gridX) * std::uint32_t(k->gridY) * std::uint32_t(k->gridZ);
      s.block = std::uint32_t(k->blockX) * std::uint32_t(k->blockY) * std::uint32_t(k->blockZ);
      s.cluster = k->clusterX * std::max(k->clusterY, 1u) * std::max(k->clusterZ, 1u);
      s.registers = k->registersPerThread;
      s.local_bytes = k->localMemoryPerThread;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      s.kind = SpanKind::memset;
      s.start_ns = m->start;
      s.end_ns = m->end;
      s.bytes = m->bytes;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      s.kind = SpanKind::memcpy;
      s.start_ns = m->start;
      s.end_ns = m->end;
      s.bytes = m->bytes;
    }
    return s;
  }
};

std::mutex Cupti::mutex;
std::vector<TimelineSpan> Cupti::spans;

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_MEMCPY};

}  // namespace

CallTimeline trace_call(const std::string& title, const std::function<void()>& prepare,
                        const std::function<void()>& enqueue_and_sync) {
  CallTimeline t;
  t.title = title;
  Cupti& c = Cupti::get();
  if (!c.error.empty()) {
    t.error = c.error;
    return t;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) {
    t.error = "the device was not idle before the trace";
    return t;
  }
  const auto discard_recorded = [&] {
    c.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(Cupti::mutex);
    Cupti::spans.clear();
  };
  discard_recorded();  // whatever an earlier trace left
  for (CUpti_ActivityKind kind : kKinds)
    if (c.enable(kind) != CUPTI_SUCCESS) {
      t.error = "cuptiActivityEnable failed (another profiler attached?)";
      for (CUpti_ActivityKind k : kKinds) c.disable(k);
      return t;
    }
  prepare();
  enqueue_and_sync();  // the unrecorded call
  prepare();
  bool synced = cudaDeviceSynchronize() == cudaSuccess;
  discard_recorded();
  enqueue_and_sync();
  synced = cudaDeviceSynchronize() == cudaSuccess && synced;
  for (CUpti_ActivityKind kind : kKinds) c.disable(kind);
  c.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(Cupti::mutex);
  t.spans.swap(Cupti::spans);
  if (!synced) {
    t.spans.clear();
    t.error = "the traced call failed";
  }
  return t;
}

#else

CallTimeline trace_call(const std::string& title, const std::function<void()>&, const std::function<void()>&) {
  CallTimeline t;
  t.title = title;
  t.error = "tilesort-bench was built without CUPTI's headers";
  return t;
}

#endif

}  // namespace bench
