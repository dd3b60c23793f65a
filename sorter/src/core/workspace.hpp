// The workspace layout that sorting and binning share: one type both sizes
// a workspace (the two-phase query) and maps it (every call), so the bytes a
// query reports and the arrays a call uses come from the same lines.
// Host only; sized from a plan's capacities, never from data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "tilesort/status.hpp"

namespace tilesort {
namespace detail {

/// One array of a workspace: its byte offset and how many T it holds.
template <class T>
struct WorkspaceSlot {
  std::size_t offset = 0;
  std::uint64_t count = 0;

  T* in(void* workspace) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(workspace) + offset);
  }
  const T* in(const void* workspace) const {
    return reinterpret_cast<const T*>(static_cast<const unsigned char*>(workspace) + offset);
  }
  /// The array viewed as U: for an array sized for the widest type it serves.
  template <class U>
  U* as(void* workspace) const {
    return reinterpret_cast<U*>(in(workspace));
  }
  /// Byte offset one past the array (before the next slot's alignment).
  std::size_t end() const { return offset + std::size_t(count * sizeof(T)); }
};

/// Carves a workspace front to back into arrays on kAlignment boundaries.
class WorkspaceLayout {
 public:
  /// Every array starts on this boundary; workspaces must be aligned to it.
  static constexpr std::size_t kAlignment = 256;

  template <class T>
  WorkspaceSlot<T> take(std::uint64_t count) {
    WorkspaceSlot<T> slot;
    slot.offset = bytes_;
    slot.count = count;
    bytes_ += (std::size_t(count * sizeof(T)) + kAlignment - 1) / kAlignment * kAlignment;
    return slot;
  }
  /// Bytes taken so far: the workspace size once every array is taken.
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

inline bool misaligned(const void* p, std::size_t alignment) {
  return alignment != 0 && reinterpret_cast<std::uintptr_t>(p) % alignment != 0;
}

/// The checks every call makes of the workspace it is given, so sorting and
/// binning refuse the same workspaces in the same words.
inline Status check_workspace(const void* workspace, std::size_t workspace_bytes, std::size_t needed_bytes) {
  if (!workspace) return Status(StatusCode::invalid_argument, "workspace is null");
  if (misaligned(workspace, WorkspaceLayout::kAlignment))
    return Status(StatusCode::invalid_argument, "workspace is not 256-byte aligned");
  if (workspace_bytes < needed_bytes) {
    char message[128];
    std::snprintf(message, sizeof(message), "workspace has %zu bytes, the plan needs %zu", workspace_bytes,
                  needed_bytes);
    return Status(StatusCode::workspace_too_small, message);
  }
  return Status();
}

}  // namespace detail
}  // namespace tilesort
