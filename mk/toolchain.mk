# Toolchain detection: the CUDA compiler, the GPU architecture to build for and
# the installed Catch2. Included by the Makefile; nothing here is a target.

comma := ,
space := $() $()

# ---- CUDA ------------------------------------------------------------------
NVCC ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
CUDA_HOME := $(if $(CUDA_HOME),$(CUDA_HOME),/usr/local/cuda)
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))

# The architecture to build for: ARCH=sm_90 wins; else the GPU in this machine;
# else a fixed list of what CUDA 13 supports (Turing to Blackwell), so that code
# that would not compile for some GPU fails here too, on a machine with none.
FALLBACK_ARCHS := 75 80 86 89 90 100 120
DETECTED_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ifneq ($(ARCH),)
  ARCH_FLAGS := -arch=$(ARCH)
  ARCH_DESCRIPTION := $(ARCH) (from ARCH=)
else ifneq ($(DETECTED_ARCH),)
  ARCH_FLAGS := -arch=sm_$(DETECTED_ARCH)
  ARCH_DESCRIPTION := sm_$(DETECTED_ARCH) (the GPU in this machine)
else
  ARCH_FLAGS := $(foreach a,$(FALLBACK_ARCHS),-gencode arch=compute_$(a),code=sm_$(a))
  ARCH_DESCRIPTION := sm_$(subst $(space),$(comma)sm_,$(FALLBACK_ARCHS)) (no GPU found; set ARCH=sm_XY to choose)
endif

# ---- The backend --------------------------------------------------------------
# Kernels run on the GPU (cuda) when nvidia-smi sees one and nvcc is there; else on
# the CPU backend (emu, mk/emu.mk). BACKEND=cuda or BACKEND=emu chooses.
ifeq ($(DETECTED_ARCH),)
  DEFAULT_BACKEND := emu
  DEFAULT_BACKEND_REASON := no CUDA device was found
else ifeq ($(shell command -v $(NVCC) 2>/dev/null),)
  DEFAULT_BACKEND := emu
  DEFAULT_BACKEND_REASON := there is a GPU but no nvcc
else
  DEFAULT_BACKEND := cuda
  DEFAULT_BACKEND_REASON := a CUDA device was found
endif

# ---- Catch2 ------------------------------------------------------------------
# Version 3 is a compiled library that pkg-config knows as catch2-with-main (only
# version 3 ships that name); version 2 is the single header catch2/catch.hpp.
# Our own test main (tests/harness/main.cpp) is used with both.
ifeq ($(shell pkg-config --exists catch2-with-main 2>/dev/null && echo yes),yes)
  CATCH_VERSION := 3
  CATCH_CFLAGS := -DTUTORIAL_CATCH2_V3 $(shell pkg-config --cflags catch2)
  CATCH_LIBS := $(shell pkg-config --libs catch2)
else ifneq ($(wildcard /usr/include/catch2/catch.hpp /usr/local/include/catch2/catch.hpp),)
  CATCH_VERSION := 2
else
  CATCH_VERSION := none
endif
