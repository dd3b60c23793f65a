# tilesort: `make run` and `make test` do all set-up on a fresh Debian 12
# machine that has the CUDA toolkit.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
NVCC ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)

.PHONY: all deps configure build run test bench clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_CUDA_COMPILER=$(NVCC) $(CMAKE_ARGS)

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: the demo (tilesort-demo, docs/demo.md). A window where there
# is a display, else headless (DEMO_FRAMES frames, stats, image, verified
# against the CPU reference); CUDA sorts where there is a GPU, else the CPU.
# DEMO_ARGS adds options. The benchmark is `make bench`.
run: build
	@DEMO_ARGS="$(DEMO_ARGS)" scripts/run-main.sh $(BUILD_DIR)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: build
	@$(BUILD_DIR)/bench/tilesort-bench $(BENCH_ARGS)

clean:
	@rm -rf $(BUILD_DIR)
