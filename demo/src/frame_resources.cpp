#include "frame_resources.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

#include "demo_shaders.hpp"
#include "frame_sync.hpp"
#include "window.hpp"

namespace tilesort {
namespace demo {

namespace {
constexpr std::uint32_t kQueriesPerFrame = 4;  // emit begin/end, composite begin/end
}  // namespace

using vkbase::image_barrier;
using vkbase::memory_barrier;

void FrameResources::create(const vkbase::Context& vk, const interop::VulkanDevice* interop, int cuda_device,
                            const FrameSizes& sizes) {
  vk_ = &vk;
  interop_ = interop;
  cuda_device_ = cuda_device;
  const VkDeviceSize records = VkDeviceSize(sizes.capacity) * 4;
  for (RecordBuffer* b : {&tile_ids_, &keys_, &ids_, &sorted_keys_, &sorted_ids_}) create_record_buffer(b, records);
  create_record_buffer(&offsets_, VkDeviceSize(sizes.max_tiles + 1) * 4);
  create_record_buffer(&counters_, sizeof(Counters));
  ts_check(vkbase::Buffer::create(vk, VkDeviceSize(sizes.max_particles) * sizeof(Splat), vkbase::kStorageUsage,
                                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &splats_),
           "buffer");
  ts_check(vkbase::Buffer::create(vk, kSlots * sizeof(Counters), vkbase::kStorageUsage, vkbase::kHostMemory,
                                  vkbase::kHostMemory, &stats_),
           "buffer");
  ts_check(vkbase::Image::create(vk, VK_FORMAT_R8G8B8A8_UNORM, {sizes.width, sizes.height},
                                 VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &image_),
           "render target");
  create_pipelines();
  ts_check(vk.allocate_command_buffers(kSlots, emit_cmd_.data()), "emission command buffers");
  ts_check(vk.allocate_command_buffers(kSlots, composite_cmd_.data()), "composite command buffers");
  create_queries();
}

void FrameResources::create_record_buffer(RecordBuffer* b, VkDeviceSize bytes) {
  if (interop_) {
    ts_check(interop::SharedBuffer::create(*interop_, cuda_device_, bytes, &b->shared), "SharedBuffer::create");
    return;
  }
  // Cached where offered: the host reads the records back every frame.
  ts_check(vkbase::Buffer::create(*vk_, bytes, vkbase::kStorageUsage,
                                  vkbase::kHostMemory | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, vkbase::kHostMemory,
                                  &b->plain),
           "buffer");
}

void FrameResources::create_pipelines() {
  // Bindings 0 .. kBindingCount - 1 (demo_shaderio.h): storage buffers, and the image at kBindingTarget.
  std::array<vkbase::SetBinding, kBindingCount> bindings;
  bindings[kBindingSplats] = vkbase::SetBinding::storage_buffer(splats_);
  bindings[kBindingTileIds] = vkbase::SetBinding::storage_buffer(tile_ids_.vk());
  bindings[kBindingKeys] = vkbase::SetBinding::storage_buffer(keys_.vk());
  bindings[kBindingIds] = vkbase::SetBinding::storage_buffer(ids_.vk());
  bindings[kBindingCounters] = vkbase::SetBinding::storage_buffer(counters_.vk());
  bindings[kBindingSortedIds] = vkbase::SetBinding::storage_buffer(sorted_ids_.vk());
  bindings[kBindingOffsets] = vkbase::SetBinding::storage_buffer(offsets_.vk());
  bindings[kBindingTarget] = vkbase::SetBinding::storage_image(image_.view());
  ts_check(vkbase::ComputeSet::create(vk_->device(), bindings.data(), kBindingCount, sizeof(FrameConstants), &set_),
           "descriptor set");
  auto make = [&](demo_shaders::Spirv code, Pipeline* out) {
    ts_check(set_.create_pipeline(code.words, code.count, out), "compute pipeline");
  };
  make(demo_shaders::emit(), &emit_);
  make(demo_shaders::finalize(), &finalize_);
  make(demo_shaders::composite(), &composite_);
}

void FrameResources::create_queries() {
  // Timestamps for the two Vulkan passes, where the queue has them.
  std::uint32_t nf = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(vk_->physical(), &nf, nullptr);
  std::vector<VkQueueFamilyProperties> families(nf);
  vkGetPhysicalDeviceQueueFamilyProperties(vk_->physical(), &nf, families.data());
  const std::uint32_t bits = families[vk_->queue_family()].timestampValidBits;
  const float period = vk_->properties().limits.timestampPeriod;
  if (bits == 0 || period <= 0.0f) return;
  VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  q.queryType = VK_QUERY_TYPE_TIMESTAMP;
  q.queryCount = kSlots * kQueriesPerFrame;
  VkQueryPool qp = VK_NULL_HANDLE;
  DEMO_VK(vkCreateQueryPool(vk_->device(), &q, nullptr, &qp));
  queries_ = QueryPool(vk_->device(), qp);
  timestamps_ = true;
  timestamp_ns_ = period;
  timestamp_mask_ = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

VkCommandBuffer FrameResources::record_emit(std::uint32_t slot, const FrameConstants& c,
                                            const interop::SharedWord* word, std::uint64_t emitted_value) {
  const VkCommandBuffer cmd = emit_cmd_[slot];
  DEMO_VK(vkResetCommandBuffer(cmd, 0));
  ts_check(vkbase::begin_one_time(cmd), "emission command buffer");
  const std::uint32_t q = slot * kQueriesPerFrame;
  if (timestamps_) {
    vkCmdResetQueryPool(cmd, queries_, q, kQueriesPerFrame);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, q);
  }
  const Counters reset{0u, c.capacity, 0u, 0u};
  vkCmdUpdateBuffer(cmd, counters_.vk(), 0, sizeof reset, &reset);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, emit_, &c, sizeof c);
  vkCmdDispatch(cmd, vkbase::groups_for(c.num_particles, kEmitGroupSize), 1, 1);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, finalize_, &c, sizeof c);
  vkCmdDispatch(cmd, 1, 1, 1);
  // The CPU path reads the records on the host once the signal lands; the
  // CUDA path is ordered by the semaphore signal itself.
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
  // --handoff memory: the batch's last write tells CUDA it is done (the
  // semaphore is still signalled, for the host and the ordering guard).
  if (word) word->record_vk_write(cmd, emitted_value);
  if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, q + 1);
  DEMO_VK(vkEndCommandBuffer(cmd));
  return cmd;
}

VkCommandBuffer FrameResources::record_composite(std::uint32_t slot, const FrameConstants& c, Window* window,
                                                 std::uint32_t swap_image) {
  const VkCommandBuffer cmd = composite_cmd_[slot];
  DEMO_VK(vkResetCommandBuffer(cmd, 0));
  ts_check(vkbase::begin_one_time(cmd), "composite command buffer");
  const std::uint32_t q = slot * kQueriesPerFrame;
  if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, q + 2);
  // The image is rewritten in full (tiles cover the screen): its old contents can go.
  image_barrier(cmd, image_, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, composite_, &c, sizeof c);
  vkCmdDispatch(cmd, c.tiles_x, c.tiles_y, 1);  // one workgroup per tile
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT);
  const VkBufferCopy stats{0, VkDeviceSize(slot) * sizeof(Counters), sizeof(Counters)};
  vkCmdCopyBuffer(cmd, counters_.vk(), stats_, 1, &stats);
  if (window) window->record(cmd, swap_image, image_, {c.width, c.height});
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, q + 3);
  DEMO_VK(vkEndCommandBuffer(cmd));
  return cmd;
}

SortFrame FrameResources::cuda_frame(const FrameConstants& c, bool sort_depth) const {
  SortFrame f;
  f.tile_ids = tile_ids_.cuda<const std::uint32_t>();
  f.keys = keys_.cuda<const std::uint32_t>();
  f.ids = ids_.cuda<const std::uint32_t>();
  f.d_num_records = counters_.cuda<const std::uint32_t>() + offsetof(Counters, num_records) / 4;
  f.num_tiles = c.tiles_x * c.tiles_y;
  f.sort_depth = sort_depth;
  f.out_keys = sorted_keys_.cuda<std::uint32_t>();
  f.out_ids = sorted_ids_.cuda<std::uint32_t>();
  f.out_offsets = offsets_.cuda<std::uint32_t>();
  return f;
}

HostLists FrameResources::host_lists() const {
  HostLists h;
  h.records = {tile_ids_.host<const std::uint32_t>(), keys_.host<const std::uint32_t>(),
               ids_.host<const std::uint32_t>(), counters_.host<const Counters>()->num_records};
  h.keys = sorted_keys_.host<std::uint32_t>();
  h.ids = sorted_ids_.host<std::uint32_t>();
  h.offsets = offsets_.host<std::uint32_t>();
  return h;
}

SlotReadings FrameResources::read_slot(std::uint32_t slot) const {
  SlotReadings r;
  std::memcpy(&r.counters, stats_.mapped_as<const char>() + slot * sizeof(Counters), sizeof(Counters));
  if (!timestamps_) return r;
  std::uint64_t t[kQueriesPerFrame] = {};
  const VkResult result = vkGetQueryPoolResults(vk_->device(), queries_, slot * kQueriesPerFrame, kQueriesPerFrame,
                                                sizeof t, t, sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT);
  if (result == VK_SUCCESS) {
    r.emit_ms = double((t[1] - t[0]) & timestamp_mask_) * timestamp_ns_ * 1e-6;
    r.composite_ms = double((t[3] - t[2]) & timestamp_mask_) * timestamp_ns_ * 1e-6;
  } else if (result != VK_NOT_READY) {
    vk_check(result, "vkGetQueryPoolResults");
  }
  return r;
}

FrameReadback FrameResources::read_back(FrameSync& sync, std::uint64_t wait_value, const FrameConstants& c,
                                        const Counters& counters, bool all, bool corrupt) const {
  // The buffers still hold the last frame: read it back in one submission
  // (outside the frame loop), optionally corrupting one sorted record first.
  const std::uint64_t n = counters.num_records;
  const std::uint32_t num_tiles = c.tiles_x * c.tiles_y;
  const VkDeviceSize splat_bytes = all ? VkDeviceSize(c.num_particles) * sizeof(Splat) : 0;
  const VkDeviceSize rec = n * 4, in_rec = all ? rec : 0, off_bytes = VkDeviceSize(num_tiles + 1) * 4;
  const VkDeviceSize image_bytes = all ? VkDeviceSize(c.width) * c.height * 4 : 0;
  // Staging layout: splats | tile_ids | keys | ids | sorted_keys | sorted_ids | offsets | image
  const VkDeviceSize o_tiles = splat_bytes, o_keys = o_tiles + in_rec, o_ids = o_keys + in_rec,
                     o_skeys = o_ids + in_rec, o_sids = o_skeys + rec, o_off = o_sids + rec, o_img = o_off + off_bytes;
  vkbase::Buffer staging;
  ts_check(vkbase::Buffer::create(*vk_, o_img + image_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vkbase::kHostMemory,
                                  vkbase::kHostMemory, &staging),
           "buffer");

  VkCommandBuffer cmd = VK_NULL_HANDLE;
  ts_check(vk_->allocate_command_buffers(1, &cmd), "read-back command buffer");
  struct FreeCmd {
    VkDevice d;
    VkCommandPool p;
    VkCommandBuffer c;
    ~FreeCmd() { vkFreeCommandBuffers(d, p, 1, &c); }
  } free_cmd{vk_->device(), vk_->command_pool(), cmd};
  ts_check(vkbase::begin_one_time(cmd), "read-back command buffer");
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  if (corrupt && n > 0) {
    // Test hook: one sorted particle id becomes one no particle has; the
    // verification must catch it (tests/demo expects exit code 2).
    vkCmdFillBuffer(cmd, sorted_ids_.vk(), (n / 2) * 4, 4, 0xFFFFFFFFu);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT);
  }
  auto copy = [&](VkBuffer src, VkDeviceSize dst_offset, VkDeviceSize bytes) {
    if (bytes == 0) return;
    const VkBufferCopy region{0, dst_offset, bytes};
    vkCmdCopyBuffer(cmd, src, staging, 1, &region);
  };
  copy(splats_, 0, splat_bytes);
  copy(tile_ids_.vk(), o_tiles, in_rec);
  copy(keys_.vk(), o_keys, in_rec);
  copy(ids_.vk(), o_ids, in_rec);
  copy(sorted_keys_.vk(), o_skeys, rec);
  copy(sorted_ids_.vk(), o_sids, rec);
  copy(offsets_.vk(), o_off, off_bytes);
  if (all) {
    VkBufferImageCopy region{};
    region.bufferOffset = o_img;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {c.width, c.height, 1};
    vkCmdCopyImageToBuffer(cmd, image_, VK_IMAGE_LAYOUT_GENERAL, staging, 1, &region);
  }
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  DEMO_VK(vkEndCommandBuffer(cmd));
  sync.submit(cmd, wait_value, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, wait_value + 1);
  sync.host_wait(wait_value + 1);

  const auto* base = staging.mapped_as<const std::uint8_t>();
  auto words = [&](VkDeviceSize offset, std::uint64_t count) {
    const auto* p = reinterpret_cast<const std::uint32_t*>(base + offset);
    return std::vector<std::uint32_t>(p, p + count);
  };
  FrameReadback f;
  f.constants = c;
  f.counters = counters;
  if (all) {
    f.splats.resize(c.num_particles);
    std::memcpy(f.splats.data(), base, splat_bytes);
    f.tile_ids = words(o_tiles, n);
    f.keys = words(o_keys, n);
    f.ids = words(o_ids, n);
    f.image.assign(base + o_img, base + o_img + image_bytes);
  }
  f.sorted_keys = words(o_skeys, n);
  f.sorted_ids = words(o_sids, n);
  f.offsets = words(o_off, num_tiles + 1);
  return f;
}

}  // namespace demo
}  // namespace tilesort
