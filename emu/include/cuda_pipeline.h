/// @file cuda_pipeline.h
/// @brief The CPU backend's <cuda_pipeline.h>: the cp.async primitives.
#pragma once

#include "cuda_pipeline_primitives.h"
