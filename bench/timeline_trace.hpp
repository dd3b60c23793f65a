// Records the GPU timeline of one call with CUPTI's activity API (kernels
// as CONCURRENT_KERNEL records, so launches keep overlapping as they do
// untraced; memsets; copies). CUPTI is loaded at run time, from
// $TILESORT_BENCH_CUPTI if set, else libcupti.so.13 / libcupti.so on the
// loader's path, so tilesort-bench runs where it is absent and only
// --timeline reports that it is.
#pragma once

#include <functional>
#include <string>

#include "timeline.hpp"

namespace bench {

/// With activity recording on: `prepare` then `enqueue_and_sync` once
/// unrecorded (recording's own set-up delays the first launches after it is
/// switched on), `prepare` again, then `enqueue_and_sync` recorded. Returns
/// what the device ran in that last call; on failure, the spans are empty
/// and `error` says why. `enqueue_and_sync` must enqueue the call and wait
/// for it; `prepare` restores its input and waits. Work of other streams in
/// the same window is recorded too: trace an idle GPU.
CallTimeline trace_call(const std::string& title, const std::function<void()>& prepare,
                        const std::function<void()>& enqueue_and_sync);

}  // namespace bench
