// A minimal parallel-for over an index range, for host-side generation and
// verification of 2^24-item inputs (std::thread only: no TBB/OpenMP
// dependency). Chunks are handed out dynamically, so a few huge segments
// mixed with many small ones still spread over all cores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace bench {

inline unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// Calls body(begin, end) on disjoint chunks of [0, count), each at most
/// `grain` long, from all hardware threads. `body` must not throw.
template <class Body>
void parallel_for(std::size_t count, std::size_t grain, const Body& body) {
  grain = std::max<std::size_t>(grain, 1);
  const unsigned threads = host_threads();
  if (threads == 1 || count <= grain) {
    if (count != 0) body(std::size_t{0}, count);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (;;) {
      const std::size_t begin = next.fetch_add(grain);
      if (begin >= count) return;
      body(begin, std::min(count, begin + grain));
    }
  };
  const unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(threads, (count + grain - 1) / grain)) - 1;
  std::vector<std::thread> pool;
  pool.reserve(helpers);
  for (unsigned t = 0; t < helpers; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
}

/// A grain that gives each thread many chunks (for load balance) without
/// making the chunks so small that the shared counter becomes the cost.
inline std::size_t balanced_grain(std::size_t count) {
  constexpr std::size_t kChunksPerThread = 16;
  return std::max<std::size_t>(1, count / (host_threads() * kChunksPerThread));
}

}  // namespace bench
