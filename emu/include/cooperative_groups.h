/// @file cooperative_groups.h
/// @brief The CPU backend's <cooperative_groups.h>: the block as a group.
#pragma once

#include "emu/thread_block.h"
