// tilesort-demo: the frame.
//
//   Vulkan  emit.comp + finalize.comp: particles -> splats + (tile, depth key, id) records
//           signal 3f+1
//   CUDA    waits 3f+1; tilesort::bin_and_sort (or bin, "sort off") on the shared buffers
//           signal 3f+2                    [CPU path: host waits 3f+1, sorts, host-signals 3f+2]
//   Vulkan  waits 3f+2; composite.comp (one workgroup per tile) -> storage image
//           -> blit to the swapchain -> Dear ImGui overlay; signal 3f+3
//
// The next frame's emission waits for 3f+3, so the single set of shared
// buffers is never written while it is read. The host waits only for frame
// f-2 (command buffers and the stats ring have two slots).
#include "renderer.hpp"

#include <cuda_runtime.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#if TILESORT_DEMO_WINDOW  // the overlay's panel (draw_overlay, handle_input)
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#endif

#include "demo_core.hpp"
#include "demo_shaders.hpp"
#include "frame_log.hpp"
#include "sort_stage.hpp"
#include "sorters.hpp"
#include "sweep.hpp"
#include "timeline.hpp"
#include "tilesort/binning.hpp"
#include "tilesort/interop/interop.hpp"
#include "tilesort/vkbase/context.hpp"
#include "tilesort/vkbase/resources.hpp"
#include "vk.hpp"
#include "window.hpp"

namespace tilesort {
namespace demo {
namespace {

namespace ti = tilesort::interop;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kQueriesPerFrame = 4;  // emit begin/end, composite begin/end
constexpr std::uint64_t kWaitTimeoutNs = 20ull * 1000000000ull;
constexpr std::uint32_t kMinTileSize = 8;       // of the --tile sizes; the buffers are sized for it
static_assert(kMinTileSize % kCompositeSide == 0, "a composite workgroup covers whole tiles");
constexpr float kMaxRadiusPx = 40.0f;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw DemoError(std::string(what) + " failed: " + cudaGetErrorString(e));
}


/// `name` in the executable's folder (the build folder), never relative to the cwd.
std::string beside_executable(const std::string& name) {
  char exe[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = len > 0 ? std::string(exe, std::size_t(len)) : std::string();
  dir = dir.substr(0, dir.find_last_of('/'));
  return (dir.empty() ? std::string(".") : dir) + "/" + name;
}

bool write_text(const std::string& path, const std::string& text, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f) ok = std::fclose(f) == 0 && ok;
  if (!ok) *error = "cannot write " + path;
  return ok;
}

/// A binary semaphore, or a timeline semaphore starting at 0.
Semaphore create_semaphore(VkDevice dev, bool timeline) {
  Semaphore s;
  ts_check(vkbase::create_semaphore(dev, timeline, &s), "semaphore");
  return s;
}

/// A buffer Vulkan writes and the sort reads or writes: shared with CUDA on
/// the GPU path, host-visible on the CPU path.
struct RecordBuffer {
  ti::SharedBuffer shared;
  vkbase::Buffer plain;
  VkBuffer vk() const { return shared.valid() ? shared.vk_buffer() : plain.get(); }
  template <class T>
  T* cuda() const { return shared.cuda_as<T>(); }
  template <class T>
  T* host() const { return plain.mapped_as<T>(); }
};

/// What a slot's frame was recorded with (read back when the slot is reused).
struct SlotState {
  std::uint64_t frame = 0;
  bool in_use = false;
  bool sort_depth = true;
  SorterSet sorters;  // what sorted the frame (primary last)
  FrameConstants constants;
  double cpu_sort_ms = -1;
  double frame_ms = -1;
};

class Renderer {
 public:
  Renderer(const Options& options, bool headless) : opt_(options), headless_(headless) {}
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  void init(const std::string& why_headless);
  int run();

 private:
  // set-up
  vkbase::Instance create_instance();
  vkbase::PhysicalDevice pick_device(const vkbase::Instance& instance);
  void create_device(vkbase::Instance instance, const vkbase::PhysicalDevice& physical);
  void create_buffer(vkbase::Buffer* b, VkDeviceSize bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
                     VkMemoryPropertyFlags fallback);
  void create_record_buffer(RecordBuffer* b, VkDeviceSize bytes);
  void create_resources();
  void create_pipelines();
  void create_sync();
  // windowed: the overlay's panel and the controls
  void draw_overlay();
  void handle_input();
  // the loops: headless runs a fixed number of frames, windowed until the window closes
  int run_headless();
  int run_windowed();
  // frame
  FrameConstants frame_constants(std::uint32_t num_particles, std::uint32_t tile_size) const;
  void record_emit(VkCommandBuffer cmd, std::uint32_t slot, const FrameConstants& c, std::uint64_t emitted_value);
  void record_draw(VkCommandBuffer cmd, std::uint32_t slot, const FrameConstants& c, std::int64_t swap_image);
  /// Waits until `slot` is free (frame f - kSlots done), reads its last frame, and follows the sweep.
  void reuse_slot(std::uint64_t f, std::uint32_t slot);
  /// Host time since the previous frame (ms, -1 for the first), and advances the animation by `dt`.
  double lap(std::uint64_t f, Clock::time_point* previous) const;
  void advance(float dt);
  /// The frame's constants, remembered in its slot.
  FrameConstants begin_frame(std::uint64_t f, std::uint32_t slot, double frame_ms);
  /// Emission (Vulkan), then the sort (CUDA or the host) of frame f.
  void emit_and_sort(std::uint64_t f, std::uint32_t slot, const FrameConstants& c);
  void submit(VkCommandBuffer cmd, std::uint64_t wait_value, VkPipelineStageFlags wait_stage,
              std::uint64_t signal_value, VkSemaphore extra_wait = VK_NULL_HANDLE,
              VkPipelineStageFlags extra_wait_stage = 0, VkSemaphore extra_signal = VK_NULL_HANDLE);
  void host_wait(std::uint64_t value);
  void sort_frame(std::uint64_t frame, std::uint32_t slot, const FrameConstants& c, bool sort_depth);
  void collect(std::uint32_t slot);
  int finish(std::uint64_t frames_done);
  SortFrame sort_frame_args(const FrameConstants& c, bool sort_depth) const;
  /// Copies the last frame back (one submission waiting for `wait_value`,
  /// signalling wait_value + 1); `all` also the splats, records and image.
  FrameReadback read_back(std::uint64_t wait_value, bool all, bool corrupt);
  int verify_sorters(std::uint64_t next_value, std::vector<std::uint8_t>* image);
  const SlotState& last_slot() const;
  void start_sweep();
  void finish_sweep();

  VkSemaphore timeline() const { return gpu_ ? shared_timeline_.vk_semaphore() : cpu_timeline_.get(); }
  std::uint32_t max_tiles() const {
    return tiles_along(opt_.width, kMinTileSize) * tiles_along(opt_.height, kMinTileSize);
  }

  Options opt_;
  bool headless_;
  Window window_;       // before vk_: the GLFW window outlives the surface
  vkbase::Context vk_;  // instance (+ surface), device, queue, command pool
  std::string path_;    // "GPU: ..." / "CPU fallback: ..."
  bool gpu_ = false;
  int cuda_device_ = -1;
  ti::VulkanDevice interop_device_;

  std::uint32_t max_particles_ = 0;
  std::uint32_t capacity_ = 0;
  RecordBuffer tile_ids_, keys_, ids_, sorted_keys_, sorted_ids_, offsets_, counters_;
  vkbase::Buffer splats_, stats_;
  vkbase::Image image_;

  DescriptorSetLayout set_layout_;
  DescriptorPool descriptor_pool_;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  PipelineLayout pipeline_layout_;
  Pipeline emit_, finalize_, composite_;

  ti::SharedTimelineSemaphore shared_timeline_;
  ti::SharedWord emitted_word_;  // --handoff memory: Vulkan -> CUDA through a memory word
  Semaphore cpu_timeline_;
  std::array<VkCommandBuffer, kSlots> emit_cmd_{}, draw_cmd_{};
  QueryPool queries_;
  bool timestamps_ = false;
  double timestamp_ns_ = 1.0;
  std::uint64_t timestamp_mask_ = ~0ull;

  SortStage sort_;     // the stream and the CUDA sort paths, or the CPU sort's scratch
  SorterSet sorters_;  // which sorters run (the overlay may change it between frames)
  SweepDriver sweep_;

  // interactive state
  std::array<SlotState, kSlots> slots_;
  std::uint32_t particles_ = 0;
  std::uint32_t tile_size_ = 16;
  bool sort_depth_ = true, heatmap_ = false, paused_ = false, auto_rotate_ = true;
  float time_ = 0.0f, yaw_ = 0.4f, pitch_ = 0.35f, distance_ = 9.0f;
  float heat_scale_ = 1.0f / 10.0f;
  FrameLog log_;
  Clock::time_point last_frame_start_{};
};

Renderer::~Renderer() {
  // Nothing may still use the buffers when their owners (below) free them.
  if (vk_.device() != VK_NULL_HANDLE) vkDeviceWaitIdle(vk_.device());
  sort_.synchronize();
  window_.release();
}

// --- set-up ---------------------------------------------------------------------------------------------

void Renderer::init(const std::string& why_headless) {
  particles_ = opt_.particles;
  tile_size_ = opt_.tile_size;
  sort_depth_ = opt_.sort;
  heatmap_ = opt_.heatmap;
  paused_ = opt_.paused;
  max_particles_ = opt_.max_particles ? opt_.max_particles
                                      : (headless_ ? opt_.particles : std::max<std::uint32_t>(opt_.particles, 1u << 20));
  if (headless_ && opt_.sweep && !opt_.max_particles) {
    // A headless sweep sizes the buffers for its largest point.
    const SweepPlan all = make_sweep_plan(opt_.sweep_particles, opt_.sweep_tiles, 1u << 26, opt_.sweep_frames);
    for (const SweepPoint& p : all.points) max_particles_ = std::max(max_particles_, p.particles);
  }
  capacity_ = std::uint32_t(std::uint64_t(max_particles_) * opt_.records_per_particle);
  if (headless_)
    std::printf("tilesort-demo: headless%s%s\n", why_headless.empty() ? "" : " (", why_headless.empty() ? "" : (why_headless + ")").c_str());
  if (!headless_) window_.open(opt_.width, opt_.height);
  vkbase::Instance instance = create_instance();
  const vkbase::PhysicalDevice physical = pick_device(instance);
  std::string error;
  if (!choose_sorters(opt_.sorter, opt_.compare, gpu_, &sorters_, &error)) throw DemoError(error, kExitNoGpuPath);
  create_device(std::move(instance), physical);
  create_resources();
  create_pipelines();
  create_sync();
  if (!headless_) {
    window_.create(&vk_, opt_.vsync, !opt_.screenshot.empty());
    std::printf("tilesort-demo: window %ux%u (swapchain %ux%u, %s)\n", opt_.width, opt_.height,
                window_.extent().width, window_.extent().height, window_.vsync() ? "vsync" : "no vsync");
  }
  std::printf("tilesort-demo: Vulkan device: %s\n", vk_.device_name());
  std::printf("tilesort-demo: sort path: %s\n", path_.c_str());
  if (gpu_)
    std::printf("tilesort-demo: handoff Vulkan -> CUDA: %s\n",
                emitted_word_.valid() ? "memory word (cuStreamWaitValue64)" : "timeline semaphore");
  std::printf("tilesort-demo: sorter %s%s%s\n", sorter_name(sorters_.primary),
              sorters_.compared.empty() ? "" : ", A/B against ",
              sorters_.compared.empty() ? sorters_.note.c_str() : sorter_name(sorters_.compared.front()));
  if (opt_.sweep) {
    start_sweep();
    std::printf("tilesort-demo: sweep of %zu points (particles x tile sizes), every sorter of the run on each\n",
                sweep_.point_count());
  }
  std::printf("tilesort-demo: %ux%u, %u px tiles, %u particles (buffers for %u, %u records)\n", opt_.width,
              opt_.height, tile_size_, particles_, max_particles_, capacity_);
  std::fflush(stdout);
}

vkbase::Instance Renderer::create_instance() {
  vkbase::InstanceOptions options;
  options.app_name = "tilesort-demo";
  options.api_version = ti::kMinVulkanApiVersion;
  options.extensions = ti::instance_extensions();
  if (!headless_) window_.add_instance_extensions(&options.extensions);
  vkbase::Instance instance;
  const Status s = vkbase::create_instance(options, &instance);
  if (s.code() == StatusCode::missing_vulkan_support) throw DemoError(s.what(), kExitNoVulkan);
  ts_check(s, "vkbase::create_instance");
  if (!headless_) window_.create_surface(&instance);
  return instance;
}

vkbase::PhysicalDevice Renderer::pick_device(const vkbase::Instance& instance) {
  vkbase::DeviceRequirements need;
  need.timeline_semaphore = true;
  need.queue_flags = headless_ ? VK_QUEUE_COMPUTE_BIT : (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT);
  need.present_surface = instance.surface();
  need.name_contains = opt_.device;
  vkbase::DeviceSelection found;
  ts_check(vkbase::select_physical_devices(instance.get(), need, &found), "vkbase::select_physical_devices");
  if (found.usable.empty()) {
    if (found.rejected.empty() && opt_.device.empty()) throw DemoError("no Vulkan physical device", kExitNoVulkan);
    throw DemoError("no usable Vulkan device" + (opt_.device.empty() ? "" : " named '" + opt_.device + "'") +
                        found.rejected_lines(),
                    kExitNoVulkan);
  }

  // The GPU path needs a CUDA device that is the same GPU as a Vulkan
  // device (by UUID) with the interop extensions; otherwise the CPU sorts.
  std::string why_cpu;
  if (opt_.cpu) {
    why_cpu = "--cpu given";
  } else {
    int cuda_count = 0;
    const cudaError_t e = cudaGetDeviceCount(&cuda_count);
    if (e != cudaSuccess || cuda_count == 0) {
      why_cpu = std::string("no CUDA device (") + (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")";
      cudaGetLastError();  // clear the sticky-free error so later CUDA calls are unaffected
    } else {
      for (const vkbase::PhysicalDevice& c : found.usable) {
        const Status support = ti::check_device_support(c.handle);
        int cuda = -1;
        const Status match = support.ok() ? ti::find_cuda_device(c.handle, &cuda) : support;
        if (match.ok()) {
          cuda_device_ = cuda;
          gpu_ = true;
          cudaDeviceProp cp{};
          cuda_check(cudaGetDeviceProperties(&cp, cuda), "cudaGetDeviceProperties");
          path_ = std::string("GPU: CUDA device ") + std::to_string(cuda) + " (" + cp.name +
                  "), shared buffers + timeline semaphore via tilesort::interop";
          return c;
        }
        why_cpu += (why_cpu.empty() ? "" : "; ") + std::string(c.name()) + ": " + match.what();
      }
    }
  }
  if (opt_.gpu) throw DemoError("--gpu: the CUDA sort path is unavailable: " + why_cpu, kExitNoGpuPath);
  // CPU path: prefer a real GPU for Vulkan, else whatever there is (lavapipe).
  path_ = "CPU fallback: stable counting sort by tile + per-tile depth sort on the host, " +
          std::to_string(std::max(1u, std::min(16u, std::thread::hardware_concurrency()))) + " threads (" + why_cpu +
          ")";
  return *found.preferred();
}

void Renderer::create_device(vkbase::Instance instance, const vkbase::PhysicalDevice& physical) {
  vkbase::DeviceOptions options;
  if (gpu_) options.extensions = ti::device_extensions();
  if (!headless_) options.extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  options.timeline_semaphore = vkbase::Want::required;  // what interop needs, and the frame's own timeline
  ts_check(vkbase::Context::create(std::move(instance), physical, options, &vk_), "vkbase::Context::create");
  if (gpu_)
    ts_check(ti::VulkanDevice::create(vk_.instance(), vk_.physical(), vk_.device(), &interop_device_),
             "tilesort::interop::VulkanDevice::create");
}

void Renderer::create_buffer(vkbase::Buffer* b, VkDeviceSize bytes, VkBufferUsageFlags usage,
                             VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback) {
  ts_check(vkbase::Buffer::create(vk_, bytes, usage, want, fallback, b), "buffer");
}

void Renderer::create_record_buffer(RecordBuffer* b, VkDeviceSize bytes) {
  if (gpu_) {
    ts_check(ti::SharedBuffer::create(interop_device_, cuda_device_, bytes, &b->shared), "SharedBuffer::create");
    return;
  }
  // Cached where offered: the host reads the records back every frame.
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  create_buffer(&b->plain, bytes,
                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, kHost);
}

void Renderer::create_resources() {
  const VkDeviceSize records = VkDeviceSize(capacity_) * 4;
  for (RecordBuffer* b : {&tile_ids_, &keys_, &ids_, &sorted_keys_, &sorted_ids_}) create_record_buffer(b, records);
  create_record_buffer(&offsets_, VkDeviceSize(max_tiles() + 1) * 4);
  create_record_buffer(&counters_, sizeof(Counters));
  constexpr VkBufferUsageFlags kStorage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  create_buffer(&splats_, VkDeviceSize(max_particles_) * sizeof(Splat), kStorage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                0);
  create_buffer(&stats_, kSlots * sizeof(Counters), kStorage, vkbase::kHostMemory, vkbase::kHostMemory);

  ts_check(vkbase::Image::create(vk_, VK_FORMAT_R8G8B8A8_UNORM, {opt_.width, opt_.height},
                                 VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &image_),
           "render target");

  if (!gpu_) sort_.create_cpu(capacity_, max_tiles());
  // tilesort always; 3DGS when the run uses it or the overlay can switch to it.
  if (gpu_) sort_.create_cuda(cuda_device_, capacity_, max_tiles(), kSlots, sorters_.has(Sorter::gs3d) || !headless_);
}

void Renderer::create_pipelines() {
  const VkDevice dev = vk_.device();
  // Bindings 0 .. kBindingCount - 1 (demo_shaderio.h): storage buffers, and the image at kBindingTarget.
  static_assert(kBindingTarget == kBindingCount - 1, "the buffers are bindings 0 .. kBindingCount - 2");
  constexpr std::uint32_t kBuffers = kBindingCount - 1;
  std::array<VkDescriptorSetLayoutBinding, kBindingCount> bindings{};
  for (std::uint32_t i = 0; i < bindings.size(); ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType =
        i == kBindingTarget ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = std::uint32_t(bindings.size());
  set_info.pBindings = bindings.data();
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  DEMO_VK(vkCreateDescriptorSetLayout(dev, &set_info, nullptr, &layout));
  set_layout_ = DescriptorSetLayout(dev, layout);

  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBuffers},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 2;
  pool_info.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  DEMO_VK(vkCreateDescriptorPool(dev, &pool_info, nullptr, &pool));
  descriptor_pool_ = DescriptorPool(dev, pool);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = set_layout_.ptr();
  DEMO_VK(vkAllocateDescriptorSets(dev, &alloc, &set_));

  std::array<VkBuffer, kBuffers> buffers{};
  buffers[kBindingSplats] = splats_.get();
  buffers[kBindingTileIds] = tile_ids_.vk();
  buffers[kBindingKeys] = keys_.vk();
  buffers[kBindingIds] = ids_.vk();
  buffers[kBindingCounters] = counters_.vk();
  buffers[kBindingSortedIds] = sorted_ids_.vk();
  buffers[kBindingOffsets] = offsets_.vk();
  std::array<VkDescriptorBufferInfo, kBuffers> infos{};
  std::array<VkWriteDescriptorSet, kBindingCount> writes{};
  for (std::uint32_t i = 0; i < kBuffers; ++i) {
    infos[i] = {buffers[i], 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set_;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  const VkDescriptorImageInfo image_info{VK_NULL_HANDLE, image_.view(), VK_IMAGE_LAYOUT_GENERAL};
  VkWriteDescriptorSet& target = writes[kBindingTarget];
  target = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  target.dstSet = set_;
  target.dstBinding = kBindingTarget;
  target.descriptorCount = 1;
  target.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  target.pImageInfo = &image_info;
  vkUpdateDescriptorSets(dev, std::uint32_t(writes.size()), writes.data(), 0, nullptr);

  ts_check(vkbase::create_pipeline_layout(dev, set_layout_, sizeof(FrameConstants), &pipeline_layout_),
           "pipeline layout");
  auto make = [&](demo_shaders::Spirv code, Pipeline* out) {
    ts_check(vkbase::create_compute_pipeline(dev, pipeline_layout_, code.words, code.count, out), "compute pipeline");
  };
  make(demo_shaders::emit(), &emit_);
  make(demo_shaders::finalize(), &finalize_);
  make(demo_shaders::composite(), &composite_);
}

void Renderer::create_sync() {
  const VkDevice dev = vk_.device();
  if (gpu_) {
    ts_check(ti::SharedTimelineSemaphore::create(interop_device_, cuda_device_, 0, &shared_timeline_),
             "SharedTimelineSemaphore::create");
    if (opt_.handoff == "memory")
      ts_check(ti::SharedWord::create(interop_device_, cuda_device_, &emitted_word_), "--handoff memory: SharedWord");
  } else {
    cpu_timeline_ = create_semaphore(dev, true);
  }
  ts_check(vk_.allocate_command_buffers(kSlots, emit_cmd_.data()), "emission command buffers");
  ts_check(vk_.allocate_command_buffers(kSlots, draw_cmd_.data()), "composite command buffers");

  // Timestamps for the two Vulkan passes, where the queue has them.
  std::uint32_t nf = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(vk_.physical(), &nf, nullptr);
  std::vector<VkQueueFamilyProperties> families(nf);
  vkGetPhysicalDeviceQueueFamilyProperties(vk_.physical(), &nf, families.data());
  const std::uint32_t bits = families[vk_.queue_family()].timestampValidBits;
  const float period = vk_.properties().limits.timestampPeriod;
  if (bits > 0 && period > 0.0f) {
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = kSlots * kQueriesPerFrame;
    VkQueryPool qp = VK_NULL_HANDLE;
    DEMO_VK(vkCreateQueryPool(dev, &q, nullptr, &qp));
    queries_ = QueryPool(dev, qp);
    timestamps_ = true;
    timestamp_ns_ = period;
    timestamp_mask_ = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  }
}

// --- frame ------------------------------------------------------------------------------------------------

FrameConstants Renderer::frame_constants(std::uint32_t num_particles, std::uint32_t tile_size) const {
  FrameConstants c;
  c.num_particles = num_particles;
  c.width = opt_.width;
  c.height = opt_.height;
  c.tile_size = tile_size;
  c.tiles_x = tiles_along(opt_.width, tile_size);
  c.tiles_y = tiles_along(opt_.height, tile_size);
  c.capacity = capacity_;
  c.flags = heatmap_ ? kFlagHeatmap : 0u;
  c.time = time_;
  c.focal = 0.9f * float(opt_.height);
  c.max_radius_px = kMaxRadiusPx;
  c.heat_scale = heat_scale_;
  orbit_camera(yaw_, pitch_, distance_, &c);
  return c;
}

using vkbase::image_barrier;
using vkbase::memory_barrier;

void Renderer::record_emit(VkCommandBuffer cmd, std::uint32_t slot, const FrameConstants& c,
                           std::uint64_t emitted_value) {
  DEMO_VK(vkResetCommandBuffer(cmd, 0));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  DEMO_VK(vkBeginCommandBuffer(cmd, &begin));
  const std::uint32_t q = slot * kQueriesPerFrame;
  if (timestamps_) {
    vkCmdResetQueryPool(cmd, queries_, q, kQueriesPerFrame);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, q);
  }
  const Counters reset{0u, c.capacity, 0u, 0u};
  vkCmdUpdateBuffer(cmd, counters_.vk(), 0, sizeof reset, &reset);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set_, 0, nullptr);
  vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof c, &c);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, emit_);
  vkCmdDispatch(cmd, vkbase::groups_for(c.num_particles, kEmitGroupSize), 1, 1);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, finalize_);
  vkCmdDispatch(cmd, 1, 1, 1);
  // The CPU path reads the records on the host once the signal lands; the
  // CUDA path is ordered by the semaphore signal itself.
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
  // --handoff memory: the batch's last write tells CUDA it is done (the
  // semaphore is still signalled, for the host and the ordering guard).
  if (emitted_word_.valid()) emitted_word_.record_vk_write(cmd, emitted_value);
  if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, q + 1);
  DEMO_VK(vkEndCommandBuffer(cmd));
}

void Renderer::record_draw(VkCommandBuffer cmd, std::uint32_t slot, const FrameConstants& c,
                           std::int64_t swap_image) {
  DEMO_VK(vkResetCommandBuffer(cmd, 0));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  DEMO_VK(vkBeginCommandBuffer(cmd, &begin));
  const std::uint32_t q = slot * kQueriesPerFrame;
  if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, q + 2);
  // The image is rewritten in full (tiles cover the screen): its old contents can go.
  image_barrier(cmd, image_, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set_, 0, nullptr);
  vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof c, &c);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, composite_);
  vkCmdDispatch(cmd, c.tiles_x, c.tiles_y, 1);  // one workgroup per tile
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT);
  const VkBufferCopy stats{0, VkDeviceSize(slot) * sizeof(Counters), sizeof(Counters)};
  vkCmdCopyBuffer(cmd, counters_.vk(), stats_, 1, &stats);
  if (swap_image >= 0) window_.record(cmd, std::uint32_t(swap_image), image_, {c.width, c.height});
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, q + 3);
  DEMO_VK(vkEndCommandBuffer(cmd));
}

void Renderer::submit(VkCommandBuffer cmd, std::uint64_t wait_value, VkPipelineStageFlags wait_stage,
                      std::uint64_t signal_value, VkSemaphore extra_wait, VkPipelineStageFlags extra_wait_stage,
                      VkSemaphore extra_signal) {
  VkSemaphore waits[2];
  std::uint64_t wait_values[2] = {0, 0};
  VkPipelineStageFlags stages[2];
  std::uint32_t nw = 0;
  if (wait_value > 0) {
    waits[nw] = timeline();
    wait_values[nw] = wait_value;
    stages[nw++] = wait_stage;
  }
  if (extra_wait != VK_NULL_HANDLE) {
    waits[nw] = extra_wait;
    stages[nw++] = extra_wait_stage;
  }
  VkSemaphore signals[2] = {timeline(), extra_signal};
  const std::uint64_t signal_values[2] = {signal_value, 0};
  const std::uint32_t ns = extra_signal != VK_NULL_HANDLE ? 2 : 1;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = nw;
  values.pWaitSemaphoreValues = wait_values;
  values.signalSemaphoreValueCount = ns;
  values.pSignalSemaphoreValues = signal_values;
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.pNext = &values;
  info.waitSemaphoreCount = nw;
  info.pWaitSemaphores = waits;
  info.pWaitDstStageMask = stages;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &cmd;
  info.signalSemaphoreCount = ns;
  info.pSignalSemaphores = signals;
  DEMO_VK(vkQueueSubmit(vk_.queue(), 1, &info, VK_NULL_HANDLE));
  // Tell the interop ordering guard, so CUDA may now wait for this value.
  if (gpu_) ts_check(shared_timeline_.declare_vulkan_signal(signal_value), "declare_vulkan_signal");
}

void Renderer::host_wait(std::uint64_t value) {
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  const VkSemaphore s = timeline();
  info.semaphoreCount = 1;
  info.pSemaphores = &s;
  info.pValues = &value;
  const VkResult r = vkWaitSemaphores(vk_.device(), &info, kWaitTimeoutNs);
  if (r == VK_TIMEOUT) throw DemoError("timeline value " + std::to_string(value) + " not reached in 20 s (GPU hang?)");
  vk_check(r, "vkWaitSemaphores");
}

SortFrame Renderer::sort_frame_args(const FrameConstants& c, bool sort_depth) const {
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

void Renderer::sort_frame(std::uint64_t frame, std::uint32_t slot, const FrameConstants& c, bool sort_depth) {
  const FrameTimeline t{frame};
  if (gpu_) {
    // Every sorter of the set sorts the same records, compared ones first;
    // the primary runs last, so its lists are what the frame composites.
    sort_.enqueue_between(shared_timeline_, t.emitted(), t.sorted(), emitted_word_.valid() ? &emitted_word_ : nullptr,
                          sort_frame_args(c, sort_depth), slot, slots_[slot].sorters.run_order(),
                          sort_depth ? "sort between the timeline values" : "bin (sort off) between the timeline values");
    return;
  }
  // CPU path: the records are in host-visible memory once emission signalled.
  host_wait(t.emitted());
  const auto t0 = Clock::now();
  const Counters* counters = counters_.host<const Counters>();
  const RecordView in{tile_ids_.host<const std::uint32_t>(), keys_.host<const std::uint32_t>(),
                      ids_.host<const std::uint32_t>(), counters->num_records};
  const std::uint32_t num_tiles = c.tiles_x * c.tiles_y;
  sort_.sort_on_host(in, num_tiles, sort_depth, sorted_keys_.host<std::uint32_t>(), sorted_ids_.host<std::uint32_t>(),
                     offsets_.host<std::uint32_t>());
  slots_[slot].cpu_sort_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  signal.semaphore = cpu_timeline_;
  signal.value = t.sorted();
  DEMO_VK(vkSignalSemaphore(vk_.device(), &signal));
}

void Renderer::collect(std::uint32_t slot) {
  SlotState& s = slots_[slot];
  if (!s.in_use) return;
  s.in_use = false;
  FrameStats st;
  st.frame = s.frame;
  std::memcpy(&st.counters, stats_.mapped_as<const char>() + slot * sizeof(Counters), sizeof(Counters));
  st.frame_ms = s.frame_ms;
  if (timestamps_) {
    std::uint64_t t[kQueriesPerFrame] = {};
    const VkResult r = vkGetQueryPoolResults(vk_.device(), queries_, slot * kQueriesPerFrame, kQueriesPerFrame,
                                             sizeof t, t, sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT);
    if (r == VK_SUCCESS) {
      st.emit_ms = double((t[1] - t[0]) & timestamp_mask_) * timestamp_ns_ * 1e-6;
      st.composite_ms = double((t[3] - t[2]) & timestamp_mask_) * timestamp_ns_ * 1e-6;
    } else if (r != VK_NOT_READY) {
      vk_check(r, "vkGetQueryPoolResults");
    }
  }
  if (gpu_) {
    for (Sorter sorter : s.sorters.run_order())
      st.sort_by[int(sorter)] = sort_.elapsed_ms(sorter, slot);
  } else {
    st.sort_by[int(Sorter::cpu)] = s.cpu_sort_ms;
  }
  st.sort_ms = st.sort_by[int(s.sorters.primary)];
  st.point = {s.constants.num_particles, s.constants.tile_size};
  if (sweep_.active()) {
    const bool was = sweep_.active();
    sweep_.add_frame({st.point, st.counters.num_records, st.counters.requested - st.counters.num_records, st.sort_by});
    if (was && sweep_.finished()) finish_sweep();
  }
  // The heat-map's scale follows the fullest tile.
  heat_scale_ = 1.0f / std::log2(2.0f + float(st.counters.max_tile));
  log_.add(st, s.sorters.compared, headless_ && !opt_.quiet);
}

int Renderer::run() { return headless_ ? run_headless() : run_windowed(); }

void Renderer::reuse_slot(std::uint64_t f, std::uint32_t slot) {
  if (f >= kSlots) host_wait(FrameTimeline{f - kSlots}.done());
  collect(slot);
  if (sweep_.active()) {
    particles_ = std::min(sweep_.current().particles, max_particles_);
    tile_size_ = sweep_.current().tile_size;
  }
}

double Renderer::lap(std::uint64_t f, Clock::time_point* previous) const {
  const auto now = Clock::now();
  const double ms = f ? std::chrono::duration<double, std::milli>(now - *previous).count() : -1.0;
  *previous = now;
  return ms;
}

void Renderer::advance(float dt) {
  if (!paused_) time_ += dt;
  if (!paused_ && auto_rotate_) yaw_ += 0.12f * dt;
}

FrameConstants Renderer::begin_frame(std::uint64_t f, std::uint32_t slot, double frame_ms) {
  const FrameConstants c = frame_constants(particles_, tile_size_);
  SlotState& s = slots_[slot];
  s.frame = f;
  s.in_use = true;
  s.sort_depth = sort_depth_;
  s.sorters = sorters_;
  s.constants = c;
  s.frame_ms = frame_ms;
  return c;
}

void Renderer::emit_and_sort(std::uint64_t f, std::uint32_t slot, const FrameConstants& c) {
  const FrameTimeline t{f};
  record_emit(emit_cmd_[slot], slot, c, t.emitted());
  submit(emit_cmd_[slot], t.start(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, t.emitted());
  sort_frame(f, slot, c, sort_depth_);
}

int Renderer::run_headless() {
  // A sweep runs until its last point is measured; otherwise --frames (120).
  const bool sweep = sweep_.active();
  const std::uint64_t frames = sweep ? 0 : opt_.frames ? opt_.frames : 120;
  std::uint64_t f = 0;
  auto previous = Clock::now();
  for (; !frames || f < frames; ++f) {
    const std::uint32_t slot = std::uint32_t(f % kSlots);
    reuse_slot(f, slot);
    if (sweep && !sweep_.active()) break;
    const double frame_ms = lap(f, &previous);
    advance(1.0f / 60.0f);  // fixed steps: the same frames on every machine
    const FrameConstants c = begin_frame(f, slot, frame_ms);
    emit_and_sort(f, slot, c);
    record_draw(draw_cmd_[slot], slot, c, -1);
    const FrameTimeline t{f};
    submit(draw_cmd_[slot], t.sorted(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, t.done());
  }
  return finish(f);
}

int Renderer::run_windowed() {
  const std::uint64_t frames = opt_.frames;  // 0: until the window closes
  std::uint64_t f = 0;
  auto previous = Clock::now();
  for (;; ++f) {
    window_.poll_events();
    if (window_.should_close() || (frames && f >= frames)) break;
    const std::uint32_t slot = std::uint32_t(f % kSlots);
    reuse_slot(f, slot);
    const auto before = previous;
    const double frame_ms = lap(f, &previous);
    const float dt = std::min(0.1f, std::chrono::duration<float>(previous - before).count());
    handle_input();
    window_.capture(!opt_.screenshot.empty() && f + 1 == frames);
    const std::uint32_t swap_image = window_.acquire(slot);
    draw_overlay();
    advance(dt);
    const FrameConstants c = begin_frame(f, slot, frame_ms);
    emit_and_sort(f, slot, c);
    record_draw(draw_cmd_[slot], slot, c, swap_image);
    const FrameTimeline t{f};
    submit(draw_cmd_[slot], t.sorted(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, t.done(), window_.acquired(slot),
           VK_PIPELINE_STAGE_TRANSFER_BIT, window_.render_done(swap_image));
    window_.present(swap_image);
  }
  return finish(f);
}

const SlotState& Renderer::last_slot() const {
  const SlotState* last = &slots_[0];
  for (const SlotState& s : slots_)
    if (s.frame > last->frame) last = &s;
  return *last;
}

FrameReadback Renderer::read_back(std::uint64_t wait_value, bool all, bool corrupt) {
  // The buffers still hold the last frame: read it back in one submission
  // (outside the frame loop), optionally corrupting one sorted record first.
  const SlotState& last = last_slot();
  const FrameConstants& c = last.constants;
  const Counters counters = log_.last_counters();
  const std::uint64_t n = counters.num_records;
  const std::uint32_t num_tiles = c.tiles_x * c.tiles_y;
  const VkDeviceSize splat_bytes = all ? VkDeviceSize(c.num_particles) * sizeof(Splat) : 0;
  const VkDeviceSize rec = n * 4, in_rec = all ? rec : 0, off_bytes = VkDeviceSize(num_tiles + 1) * 4;
  const VkDeviceSize image_bytes = all ? VkDeviceSize(c.width) * c.height * 4 : 0;
  // Staging layout: splats | tile_ids | keys | ids | sorted_keys | sorted_ids | offsets | image
  const VkDeviceSize o_tiles = splat_bytes, o_keys = o_tiles + in_rec, o_ids = o_keys + in_rec,
                     o_skeys = o_ids + in_rec, o_sids = o_skeys + rec, o_off = o_sids + rec, o_img = o_off + off_bytes;
  vkbase::Buffer staging;
  create_buffer(&staging, o_img + image_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vkbase::kHostMemory,
                vkbase::kHostMemory);

  VkCommandBuffer cmd = VK_NULL_HANDLE;
  ts_check(vk_.allocate_command_buffers(1, &cmd), "read-back command buffer");
  struct FreeCmd {
    VkDevice d;
    VkCommandPool p;
    VkCommandBuffer c;
    ~FreeCmd() { vkFreeCommandBuffers(d, p, 1, &c); }
  } free_cmd{vk_.device(), vk_.command_pool(), cmd};
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
  submit(cmd, wait_value, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, wait_value + 1);
  host_wait(wait_value + 1);

  const auto* base = staging.mapped_as<const std::uint8_t>();
  auto words = [&](VkDeviceSize offset, std::uint64_t count) {
    const auto* p = reinterpret_cast<const std::uint32_t*>(base + offset);
    return std::vector<std::uint32_t>(p, p + count);
  };
  FrameReadback f;
  f.constants = c;
  f.sort_depth = last.sort_depth;
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

int Renderer::verify_sorters(std::uint64_t next_value, std::vector<std::uint8_t>* image) {
  // The primary sorter's lists, from the loop's last frame, against the CPU
  // reference: records, order, offsets and the image.
  const SlotState& last = last_slot();
  const FrameReadback primary = read_back(next_value, true, opt_.corrupt_for_test);
  next_value += 1;
  *image = primary.image;
  const VerifyResult result = verify_frame(primary);
  const bool verify = opt_.verify < 0 ? headless_ : opt_.verify == 1;
  if (!verify) return kExitOk;
  int code = kExitOk;
  std::printf("verify: %s\n", result.summary().c_str());
  std::printf("verify[%s]: %s\n", sorter_name(last.sorters.primary), result.ok ? "PASSED" : "FAILED");
  if (!result.ok) code = kExitVerifyFailed;
  // Every compared sorter sorts the same records again, and its lists must
  // equal the primary's element for element: those passed the reference, so
  // equal lists pass it too. (If the primary failed, each is checked against
  // the reference on its own.)
  for (Sorter sorter : last.sorters.compared) {
    sort_.enqueue_between(shared_timeline_, next_value, next_value + 1, nullptr,
                          sort_frame_args(last.constants, last.sort_depth), 0, {sorter},
                          "verification re-run of a compared sorter");
    sort_.check_device_status(sorter, "compared sorter (device status)");
    FrameReadback other = read_back(next_value + 1, false, false);
    next_value += 2;
    std::string why;
    if (result.ok) {
      if (other.offsets != primary.offsets) why = "tile offsets differ from the verified lists";
      else if (other.sorted_keys != primary.sorted_keys) why = "sorted keys differ from the verified lists";
      else if (other.sorted_ids != primary.sorted_ids) why = "sorted ids differ from the verified lists";
    } else {
      FrameReadback full = primary;
      full.sorted_keys = std::move(other.sorted_keys);
      full.sorted_ids = std::move(other.sorted_ids);
      full.offsets = std::move(other.offsets);
      const VerifyResult own = verify_frame(full);
      if (!own.ok) why = own.summary();
    }
    std::printf("verify[%s]: %s%s%s\n", sorter_name(sorter), why.empty() ? "PASSED" : "FAILED",
                why.empty() ? (result.ok ? ": lists identical to the verified ones" : ": against the CPU reference")
                            : ": ",
                why.c_str());
    if (!why.empty()) code = kExitVerifyFailed;
  }
  return code;
}

void Renderer::start_sweep() {
  sweep_ = SweepDriver(make_sweep_plan(opt_.sweep_particles, opt_.sweep_tiles, max_particles_, opt_.sweep_frames),
                       sorters_);
  if (sweep_.point_count() == 0) throw DemoError("--sweep: no point fits the buffers (--max-particles)");
}

void Renderer::finish_sweep() {
  std::string prefix = opt_.sweep_out.empty() ? beside_executable("tilesort-sweep") : opt_.sweep_out;
  const std::string title = std::string(vk_.device_name()) + ", " + std::to_string(opt_.width) + "x" +
                            std::to_string(opt_.height) + ": sorted records/s against records per frame";
  for (const SweepResult& r : sweep_.results())
    std::printf("sweep: %-8s %2u px %9u particles: %11.0f records, %8.3f ms, %7.1f Mrecords/s%s\n",
                sorter_name(r.sorter), r.point.tile_size, r.point.particles, r.records, r.sort_ms,
                r.records_per_s() * 1e-6, r.dropped > 0 ? " (records dropped: raise --records-per-particle)" : "");
  std::string error;
  if (!write_text(prefix + ".csv", sweep_csv(sweep_.results()), &error) ||
      !write_text(prefix + ".svg", sweep_svg(sweep_.results(), title), &error))
    throw DemoError(error);
  std::printf("sweep: wrote %s.csv and %s.svg\n", prefix.c_str(), prefix.c_str());
  std::fflush(stdout);
}

int Renderer::finish(std::uint64_t frames_done) {
  if (frames_done == 0) return kExitOk;
  const std::uint64_t last_value = FrameTimeline{frames_done - 1}.done();
  host_wait(last_value);
  window_.write_screenshot(opt_.screenshot);
  for (std::uint64_t g = frames_done - std::min<std::uint64_t>(frames_done, kSlots); g < frames_done; ++g)
    collect(std::uint32_t(g % kSlots));
  const SlotState& last = last_slot();
  if (gpu_)
    for (Sorter sorter : last.sorters.run_order())
      sort_.check_device_status(sorter, "sort (device status)");

  log_.print_summary(frames_done, path_, last.constants, last.sort_depth, last.sorters, gpu_);

  const bool verify = opt_.verify < 0 ? headless_ : opt_.verify == 1;
  const bool write_image = headless_ || !opt_.out.empty();
  if (!verify && !write_image) return kExitOk;
  std::vector<std::uint8_t> image;
  const int code = verify_sorters(after_frames(frames_done), &image);
  if (write_image) {
    const std::string path = opt_.out.empty() ? beside_executable("tilesort-demo.ppm") : opt_.out;
    std::string error;
    if (!write_ppm(path, opt_.width, opt_.height, image.data(), std::size_t(opt_.width) * 4, &error))
      throw DemoError(error);
    std::printf("image: %s\n", path.c_str());
  }
  std::fflush(stdout);
  return code;
}

// --- the overlay: its panel and the controls (Dear ImGui, through window_) ----------------------------
#if TILESORT_DEMO_WINDOW
void Renderer::handle_input() {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureMouse) {
    if (io.MouseDown[0]) {
      yaw_ -= io.MouseDelta.x * 0.005f;
      pitch_ = std::clamp(pitch_ + io.MouseDelta.y * 0.005f, -1.4f, 1.4f);
      auto_rotate_ = auto_rotate_ && io.MouseDelta.x == 0.0f && io.MouseDelta.y == 0.0f;
    }
    distance_ = std::clamp(distance_ * std::pow(0.9f, io.MouseWheel), 1.5f, 30.0f);
  }
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) paused_ = !paused_;
    if (ImGui::IsKeyPressed(GLFW_KEY_S)) sort_depth_ = !sort_depth_;
    if (ImGui::IsKeyPressed(GLFW_KEY_H)) heatmap_ = !heatmap_;
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) window_.request_close();
  }
}

void Renderer::draw_overlay() {
  window_.begin_overlay();
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("tilesort: per-tile depth sorting", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("Vulkan: %s", vk_.device_name());
  ImGui::PushTextWrapPos(460.0f);
  ImGui::TextUnformatted(path_.c_str());
  ImGui::PopTextWrapPos();
  const std::uint32_t tx = tiles_along(opt_.width, tile_size_), ty = tiles_along(opt_.height, tile_size_);
  ImGui::Text("%ux%u px, %u px tiles: %u x %u = %u tiles", opt_.width, opt_.height, tile_size_, tx, ty, tx * ty);
  ImGui::Separator();
  std::vector<double> frame, emit, sort, comp, records;
  std::vector<float> sort_plot;
  std::uint32_t max_tile = 0, dropped = 0;
  for (const FrameStats& s : log_.history()) {
    if (s.frame_ms >= 0) frame.push_back(s.frame_ms);
    if (s.emit_ms >= 0) emit.push_back(s.emit_ms);
    if (s.sort_ms >= 0) sort.push_back(s.sort_ms);
    if (s.composite_ms >= 0) comp.push_back(s.composite_ms);
    records.push_back(s.counters.num_records);
    sort_plot.push_back(float(std::max(0.0, s.sort_ms)));
    max_tile = s.counters.max_tile;
    dropped = s.counters.requested - s.counters.num_records;
  }
  const double fm = median(frame), sm = median(sort), rm = median(records);
  std::vector<SorterTimes> per_sorter;
  for (const FrameStats& s : log_.history()) per_sorter.push_back(s.sort_by);
  ImGui::Text("frame      %7.2f ms  (%5.0f fps)", fm, fm > 0 ? 1000.0 / fm : 0.0);
  ImGui::Text("emit       %7.3f ms  (Vulkan timestamps)", median(emit));
  ImGui::Text("sort       %7.3f ms  (%s, %s)", sm, sorter_name(sorters_.primary), gpu_ ? "CUDA events" : "host clock");
  if (!sorters_.compared.empty()) {
    // The A/B: every sorter on the same frames, side by side.
    const AbSummary ab = summarize_ab(sorters_, per_sorter);
    ImGui::Text("A/B        tilesort %7.3f ms | 3DGS %7.3f ms", ab.median_ms[int(Sorter::tilesort)],
                ab.median_ms[int(Sorter::gs3d)]);
    if (ab.speedup > 0) ImGui::Text("           tilesort %.2fx faster (%llu frames)", ab.speedup, (unsigned long long)ab.frames);
  }
  ImGui::Text("composite  %7.3f ms  (Vulkan timestamps)", median(comp));
  ImGui::Text("records    %9.0f / frame, fullest tile %u", rm, max_tile);
  ImGui::Text("throughput %7.1f M sorted records/s", sm > 0 ? rm / sm * 1e-3 : 0.0);
  if (dropped) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%u records did not fit (raise --records-per-particle)", dropped);
  if (!sort_plot.empty())
    ImGui::PlotLines("sort ms", sort_plot.data(), int(sort_plot.size()), 0, nullptr, 0.0f,
                     1.25f * *std::max_element(sort_plot.begin(), sort_plot.end()) + 1e-3f, ImVec2(300, 50));
  ImGui::Text("(medians of the last %zu frames)", log_.history().size());
  ImGui::Separator();
  int particles = int(particles_);
  if (ImGui::SliderInt("particles", &particles, 1024, int(max_particles_), "%d", ImGuiSliderFlags_Logarithmic))
    particles_ = std::uint32_t(std::clamp(particles, 1, int(max_particles_)));
  int tile = int(tile_size_);
  ImGui::Text("tile size");
  for (int t : {8, 16, 32}) {
    ImGui::SameLine();
    ImGui::RadioButton((std::to_string(t) + " px").c_str(), &tile, t);
  }
  tile_size_ = std::uint32_t(tile);
  if (gpu_) {
    // The sorter switch: which CUDA sorter the frame shows, and the A/B.
    int primary = int(sorters_.primary);
    ImGui::Text("sorter");
    ImGui::SameLine();
    ImGui::RadioButton("tilesort", &primary, int(Sorter::tilesort));
    ImGui::SameLine();
    ImGui::RadioButton("3DGS (CUB radix)", &primary, int(Sorter::gs3d));
    bool compare = !sorters_.compared.empty();
    ImGui::SameLine();
    ImGui::Checkbox("A/B", &compare);
    if (Sorter(primary) != sorters_.primary || compare != !sorters_.compared.empty()) {
      std::string error;
      SorterSet next;
      if (choose_sorters(sorter_name(Sorter(primary)), compare ? 1 : 0, true, &next, &error)) sorters_ = next;
      log_.clear_history();  // medians of the new set only
    }
  } else {
    ImGui::TextDisabled("sorter: cpu (no CUDA path: %s)", sorters_.note.empty() ? "see above" : sorters_.note.c_str());
  }
  // The throughput explorer: particle counts x tile sizes, every sorter of the set.
  if (sweep_.active()) {
    ImGui::Text("sweep: point %zu of %zu (%u particles, %u px)", sweep_.point_index() + 1, sweep_.point_count(),
                sweep_.current().particles, sweep_.current().tile_size);
  } else if (ImGui::Button("run throughput sweep")) {
    start_sweep();
  }
  if (!sweep_.results().empty()) {
    ImGui::Text("sorted records/s (G) against particle count, per sorter and tile size:");
    std::map<std::pair<int, std::uint32_t>, std::vector<float>> series;
    for (const SweepResult& r : sweep_.results())
      series[{int(r.sorter), r.point.tile_size}].push_back(float(r.records_per_s() * 1e-9));
    for (const auto& [key, values] : series) {
      const std::string label = std::string(sorter_name(Sorter(key.first))) + ", " + std::to_string(key.second) + " px";
      ImGui::PlotLines(label.c_str(), values.data(), int(values.size()), 0, nullptr, 0.0f,
                       1.2f * *std::max_element(values.begin(), values.end()) + 1e-6f, ImVec2(300, 40));
    }
  }
  ImGui::Checkbox("depth sort (S)", &sort_depth_);
  ImGui::SameLine();
  ImGui::Checkbox("heat-map (H)", &heatmap_);
  ImGui::Checkbox("pause (space)", &paused_);
  ImGui::SameLine();
  ImGui::Checkbox("auto-rotate", &auto_rotate_);
  bool vsync = window_.vsync();
  if (ImGui::Checkbox("vsync", &vsync)) window_.set_vsync(vsync);
  ImGui::TextDisabled("drag: orbit, wheel: zoom, esc: quit");
  ImGui::End();
  window_.end_overlay();
}
#else
void Renderer::draw_overlay() {}
void Renderer::handle_input() {}
#endif

}  // namespace

int run_demo(const Options& options) {
  bool headless = options.headless;
  std::string why;
  if (!headless) {
    why = Window::unavailable();
    if (!why.empty()) {
      if (options.window) throw DemoError("--window: no window possible: " + why);
      headless = true;
    }
  }
  Renderer renderer(options, headless);
  renderer.init(why);
  return renderer.run();
}

}  // namespace demo
}  // namespace tilesort
