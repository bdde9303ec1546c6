// Chapter 4: the simple moving average, three ways: from global memory (4a), through
// the read-only data cache (4b), and from a dynamically sized shared-memory window (4c).
//
// Reference solution.
//
// output[i] = (input[i] + ... + input[i + window - 1]) / window, for the
// size - window + 1 values of i. One thread computes one output.
#include "moving_average.h"

#include "cuda_check.h"
#include "moving_average_reference.h"
#include "validate.h"

#include <cstdint>

// 4a: each thread reads its whole window from global memory.
// BEGIN SOLUTION
// Neighbouring threads' windows overlap in all but one element, so every input element
// is requested up to `window` times; caches catch many of the repeats, but each is still
// a load instruction.
//
// 4a and 4b share this body: they differ only in what their parameters promise. Once it
// is inlined, the loads are made through the kernel's own pointer, so 4b's __restrict__
// still lets the compiler load through the read-only cache, and 4a's plain pointer does
// not (the PTX shows ld.global.nc in 4b only). The input's type is a template parameter so
// that the CPU backend keeps checking and counting the loads through the kernel's pointer.
template <class Input>
__device__ __forceinline__ float window_mean(Input input, int i, int window) {
    float sum = 0.0f;
    for (int k = 0; k < window; ++k) {
        sum += input[i + k];
    }
    return sum / window;
}
// END SOLUTION
__global__ void moving_average_naive_kernel(const float* input, float* output, int size, int window) {
    // BEGIN SOLUTION: this thread's output index i, and an early return unless the window
    //   starting at i lies wholly inside the input.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > size - window) {
        return;
    }
    // END SOLUTION

    // BEGIN SOLUTION: sum the window's inputs in a float, then store their mean in the
    //   thread's output.
    output[i] = window_mean(input, i, window);
    // END SOLUTION
}

tutorial::LaunchConfig moving_average_launch_config(int size, int window) {
    // BEGIN SOLUTION: kMovingAverageBlock threads per block, and enough blocks for every
    //   output, rounded up (tutorial::ceil_div): how many outputs does the input have?
    //| (void)size;
    //| (void)window;
    //| return tutorial::LaunchConfig{dim3(1), dim3(1)};
    const int outputs = size - window + 1;
    return tutorial::LaunchConfig{dim3(tutorial::ceil_div(outputs, kMovingAverageBlock)), dim3(kMovingAverageBlock)};
    // END SOLUTION
}

namespace {
// The launch configuration of a call of 4a, 4b or 4c, once its arguments pass the checks
// (std::invalid_argument, naming `function`, when they do not).
tutorial::LaunchConfig checked_launch_config(const char* function, const float* input, const float* output, int size,
                                             int window) {
    tutorial::require_moving_average_arguments(function, input, output, size, window);
    return moving_average_launch_config(size, window);
}
}  // namespace

void moving_average_naive(const float* input, float* output, int size, int window) {
    const tutorial::LaunchConfig launch = checked_launch_config("moving_average_naive", input, output, size, window);
    moving_average_naive_kernel<<<launch.grid, launch.block>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_naive_kernel");
}

// 4b: the same loop, with the pointers marked so that the compiler may load the input
// through the read-only data cache.
// BEGIN SOLUTION
// `const __restrict__` on the input (and `__restrict__` on the output) promises the
// compiler that nothing writes the input while the kernel runs, so it may load it through
// the read-only data cache (ld.global.nc in the PTX).
//| __global__ void moving_average_readonly_kernel(const float* input, float* output, int size, int window) {
__global__ void moving_average_readonly_kernel(const float* __restrict__ input, float* __restrict__ output, int size,
                                               int window) {
    // END SOLUTION
    // BEGIN SOLUTION: mark both pointer parameters __restrict__ (the input stays const): a
    //   promise that nothing else reads or writes them while the kernel runs. Then write the
    //   body of 4a again.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > size - window) {
        return;
    }
    output[i] = window_mean(input, i, window);
    // END SOLUTION
}

void moving_average_readonly(const float* input, float* output, int size, int window) {
    const tutorial::LaunchConfig launch = checked_launch_config("moving_average_readonly", input, output, size, window);
    moving_average_readonly_kernel<<<launch.grid, launch.block>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_readonly_kernel");
}

// 4c: each block loads the span of the input its outputs read, once, into shared memory
// sized at launch time.
// BEGIN SOLUTION
// The block's outputs first..first + blockDim.x - 1 read the inputs
// first..first + blockDim.x + window - 2: blockDim.x elements of its own and a halo of
// window - 1 after them. Its size is only known at run time (it depends on window), so
// the array is declared `extern` and sized by the third launch parameter.
// END SOLUTION
__global__ void moving_average_shared_kernel(const float* input, float* output, int size, int window) {
    // BEGIN SOLUTION: declare the dynamic shared array of floats, `cache`: extern, and with
    //   no size, since its size is the third launch parameter, set in
    //   moving_average_shared() below.
    extern __shared__ float cache[];
    // END SOLUTION

    // BEGIN SOLUTION: the block's first output, `first` (one output per thread). Its
    //   outputs read inputs first .. first + blockDim.x + window - 2: blockDim.x of its
    //   own and a halo of window - 1 after them. Load that span into cache[0], cache[1],
    //   ... in a loop: thread t loads elements t, t + blockDim.x, t + 2 * blockDim.x, ...
    //   (the span is longer than the block, many times longer when the window is). Stop
    //   at the end of the input, size - first elements.
    const int first = blockIdx.x * blockDim.x;
    // The last block's span stops at the end of the input.
    const int span = min(static_cast<int>(blockDim.x) + window - 1, size - first);
    // The span is longer than the block whenever window > 1, and many times longer when
    // window exceeds the block: each thread loads every blockDim.x-th element.
    for (int j = threadIdx.x; j < span; j += blockDim.x) {
        cache[j] = input[first + j];
    }
    // END SOLUTION

    // BEGIN SOLUTION: wait until the whole span is loaded.
    // Each thread reads elements that other threads loaded.
    __syncthreads();
    // END SOLUTION

    // BEGIN SOLUTION: as in 4a, but reading the window from cache, starting at
    //   cache[threadIdx.x]. The early return for threads past the last output comes here,
    //   after the barrier, not before the loads.
    const int i = first + threadIdx.x;
    if (i > size - window) {
        return;
    }
    float sum = 0.0f;
    for (int k = 0; k < window; ++k) {
        sum += cache[threadIdx.x + k];
    }
    output[i] = sum / window;
    // END SOLUTION
}

std::size_t moving_average_shared_bytes(int window) {
    // BEGIN SOLUTION: the bytes of shared memory a block's span needs: its own inputs and
    //   the halo after them. Compute in std::size_t, not int: the tests ask for windows up
    //   to 2 billion.
    //| (void)window;
    //| return 0;
    // In size_t: for a window near INT_MAX the count overflows an int.
    return (static_cast<std::size_t>(kMovingAverageBlock) + static_cast<std::size_t>(window) - 1) * sizeof(float);
    // END SOLUTION
}

namespace {

// Allows moving_average_shared_kernel to use `bytes` of dynamic shared memory per block.
// BEGIN SOLUTION
// A block may use 48 KB of dynamic shared memory as it is. Past that, the kernel must be
// opted in, up to the GPU's own limit; past the limit, no launch can work.
// END SOLUTION
void allow_shared_memory(std::size_t bytes) {
    // BEGIN SOLUTION: up to kSharedMemoryWithoutOptIn bytes (48 KB), there is nothing to
    //   do. Past it:
    //   1. find the GPU's limit: cudaGetDevice(&device), then cudaDeviceGetAttribute(&limit,
    //      cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    //   2. tutorial::require_shared_memory_fits("moving_average_shared", bytes, limit)
    //      throws a clear error when the request is more than that;
    //   3. opt in: cudaFuncSetAttribute(moving_average_shared_kernel,
    //      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
    //   Wrap each CUDA call in CUDA_CHECK.
    //| (void)bytes;
    if (bytes <= kSharedMemoryWithoutOptIn) {
        return;
    }
    int device = 0, limit = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    tutorial::require_shared_memory_fits("moving_average_shared", bytes, static_cast<std::size_t>(limit));
    CUDA_CHECK(cudaFuncSetAttribute(moving_average_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
    // END SOLUTION
}

}  // namespace

void moving_average_shared(const float* input, float* output, int size, int window) {
    const tutorial::LaunchConfig launch = checked_launch_config("moving_average_shared", input, output, size, window);
    const std::size_t bytes = moving_average_shared_bytes(window);
    allow_shared_memory(bytes);
    // The third launch parameter: bytes of dynamic shared memory per block, which is
    // what `extern __shared__ float cache[]` gets.
    moving_average_shared_kernel<<<launch.grid, launch.block, bytes>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_shared_kernel");
}

// ---- 4d (going further): O(1) work per output, from prefix sums ------------------------
// 4a-4c add `window` inputs per output, so they slow down as the window grows. Here an
// output is a difference of two prefix sums: (P(j + window) - P(j)) / window, whatever
// the window. A block computes kMovingAverageBlock * kPrefixItems consecutive outputs;
// its thread t the kPrefixItems outputs from first + t * kPrefixItems.
//
// The prefix sums are doubles. In float, P grows with the run (up to thousands of times
// an input) while the window's sum may be small; the difference of two rounded large
// numbers would lose most of its digits. A double holds 29 more bits, so the same
// cancellation leaves errors far below the float rounding of the result.

namespace {

// Thread's kPrefixItems inputs from `start`, 0.0f past the end of the input. VECTOR:
// start is a multiple of 4 floats from a 16-byte-aligned input, so two float4 loads.
template <int ITEMS, class Global>
__device__ __forceinline__ void load_items(Global input, int size, long long start, bool vector, float (&x)[ITEMS]) {
    if (vector && start + ITEMS <= size) {
#pragma unroll
        for (int q = 0; q < ITEMS; q += 4) {
            const float4 v = *reinterpret_cast<const float4*>(&input[start + q]);
            x[q] = v.x, x[q + 1] = v.y, x[q + 2] = v.z, x[q + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) x[k] = start + k < size ? input[start + k] : 0.0f;
    }
}

}  // namespace

// Block-wide exclusive scan of one double per thread for two sequences at once
// (Hillis-Steele: log2(block) steps, each adding the value `offset` threads back, with
// two buffers so that no thread overwrites what another still has to read). Exclusive
// results are read from the inclusive ones one thread back, never by subtraction, which
// would round.
__device__ __forceinline__ void block_exclusive_scan2(double a, double b, double& a_before, double& b_before,
                                                      double& a_total, double& b_total) {
    __shared__ double scan_a[2][kMovingAverageBlock];
    __shared__ double scan_b[2][kMovingAverageBlock];
    const int t = threadIdx.x;
    scan_a[0][t] = a;
    scan_b[0][t] = b;
    __syncthreads();
    int in = 0;
    for (int offset = 1; offset < kMovingAverageBlock; offset *= 2) {
        double sa = scan_a[in][t], sb = scan_b[in][t];
        if (t >= offset) {
            sa += scan_a[in][t - offset];
            sb += scan_b[in][t - offset];
        }
        scan_a[in ^ 1][t] = sa;
        scan_b[in ^ 1][t] = sb;
        in ^= 1;
        __syncthreads();
    }
    a_before = t > 0 ? scan_a[in][t - 1] : 0.0;
    b_before = t > 0 ? scan_b[in][t - 1] : 0.0;
    a_total = scan_a[in][kMovingAverageBlock - 1];
    b_total = scan_b[in][kMovingAverageBlock - 1];
    __syncthreads();  // a later call overwrites the buffers
}

// ITEMS: outputs per thread (kPrefixItems; the template takes others, to compare).
template <int ITEMS = kPrefixItems>
__global__ void __launch_bounds__(kMovingAverageBlock)
    moving_average_prefix_kernel(const float* input, float* output, int size, int window, bool vector_first,
                                 bool vector_second, bool vector_output) {
    // BEGIN SOLUTION: 4d, step 1 (going further). The block's first output, `first` (a
    //   long long: each block computes kMovingAverageBlock * ITEMS outputs), and this
    //   thread's, `mine` (ITEMS a thread). Load the thread's ITEMS inputs from
    //   mine into a[] and those from mine + window into b[] (load_items, with vector_first
    //   and vector_second), sum each in double, and scan the two sums across the block with
    //   block_exclusive_scan2: a_before is then P(mine), the sum of the inputs from first
    //   to mine, and b_before the sum from first + window to mine + window.
    constexpr int SPAN = kMovingAverageBlock * ITEMS;  // outputs per block
    const long long first = static_cast<long long>(blockIdx.x) * SPAN;  // the block's first output
    const long long mine = first + threadIdx.x * ITEMS;          // this thread's first

    // The inputs of the thread's outputs (first span) and those `window` further on.
    float a[ITEMS], b[ITEMS];
    load_items(input, size, mine, vector_first, a);
    load_items(input, size, mine + window, vector_second, b);
    double a_sum = 0.0, b_sum = 0.0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) a_sum += a[k], b_sum += b[k];
    double a_before, b_before, a_total, b_total;
    block_exclusive_scan2(a_sum, b_sum, a_before, b_before, a_total, b_total);
    (void)b_total;
    // END SOLUTION

    // BEGIN SOLUTION: 4d, step 2. P(first + window), the inputs between the two spans, into
    //   a __shared__ double: for a window shorter than the span, the thread whose items
    //   hold position `window` adds a[0 .. window % ITEMS) to its a_before; for a
    //   longer one, the span's total a_total plus a block-wide sum of the inputs from
    //   first + span to first + window. __syncthreads().
    __shared__ double window_sum;  // P(first + window): the inputs between the two spans
    __shared__ double partial[kMovingAverageBlock];
    // P(first + window). A window no longer than the span ends inside the first span:
    // the thread holding position `window` reads it off its prefix (position SPAN is the
    // span's total). A longer one adds the inputs between the spans: one block-wide sum,
    // window / SPAN extra reads per output.
    if (window < SPAN) {
        if (threadIdx.x == window / ITEMS) {
            double p = a_before;
            for (int k = 0; k < window % ITEMS; ++k) p += a[k];
            window_sum = p;
        }
    } else {
        double sum = 0.0;
        for (long long j = first + SPAN + threadIdx.x; j < first + window; j += kMovingAverageBlock) sum += input[j];
        partial[threadIdx.x] = sum;
        __syncthreads();
        for (int half = kMovingAverageBlock / 2; half > 0; half /= 2) {
            if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0) window_sum = a_total + partial[0];
    }
    __syncthreads();
    // END SOLUTION

    // BEGIN SOLUTION: 4d, step 3. For k < ITEMS, output mine + k is
    //   (window sum + b's prefix - a's prefix) / window, in double, the prefixes growing by
    //   b[k] and a[k] after each output. Multiply by 1.0 / window, computed once, rather than
    //   divide each time: a double division is a sequence of a dozen instructions, enough to
    //   make this memory-bound kernel wait on arithmetic. Store only outputs below size - window + 1: two
    //   float4 stores when vector_output and all eight are inside, else one by one.
    //| (void)input, (void)output, (void)size, (void)window, (void)vector_first, (void)vector_second,
    //|     (void)vector_output;
    const int outputs = size - window + 1;
    // Output j = (P(j + window) - P(j)) / window, with P(j) = a's prefix at j and
    // P(j + window) = window_sum + b's prefix at j.
    const double middle = window_sum;
    const double inverse_window = 1.0 / window;
    float result[ITEMS];
    double pa = a_before, pb = b_before;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        result[k] = static_cast<float>((middle + pb - pa) * inverse_window);
        pa += a[k];
        pb += b[k];
    }
    if (vector_output && mine + ITEMS <= outputs) {
#pragma unroll
        for (int q = 0; q < ITEMS; q += 4) {
            *reinterpret_cast<float4*>(&output[mine + q]) =
                make_float4(result[q], result[q + 1], result[q + 2], result[q + 3]);
        }
    } else {
        for (int k = 0; k < ITEMS && mine + k < outputs; ++k) output[mine + k] = result[k];
    }
    // END SOLUTION
}

void moving_average_prefix(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_prefix", input, output, size, window);
    const int outputs = size - window + 1;
    const int blocks = static_cast<int>(tutorial::ceil_div(outputs, kMovingAverageBlock * kPrefixItems));
    const auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    // Each thread's first input is a multiple of kPrefixItems (8) floats into its span:
    // 16-byte aligned when the array is, and, for the second span, when window % 4 == 0.
    moving_average_prefix_kernel<kPrefixItems><<<blocks, kMovingAverageBlock>>>(
        input, output, size, window, aligned(input), aligned(input) && window % 4 == 0, aligned(output));
    CUDA_CHECK_KERNEL("moving_average_prefix_kernel");
}

// ---- 4e (going further): one pass, each input read once ----------------------------------
// 4d reads every input twice, once for each end of the window, and stays near 75% of copy.
// Here a block walks kStreamSpan outputs from left to right, a chunk of kStreamChunk inputs
// at a time, and keeps the prefix sums of the last kStreamRing positions in shared memory.
// Once a chunk is scanned, the chunk of outputs before it has both ends of every window in
// the ring: the block computes those kStreamChunk outputs and stores them, each thread 8
// consecutive ones, two float4 stores on 16-byte boundaries.

namespace {

constexpr int kStreamChunk = kMovingAverageBlock * kPrefixItems;  // inputs per chunk: 2048
constexpr int kStreamRing = 2 * kStreamChunk;                      // positions the ring holds: 4096
static_assert(kStreamMaxWindow <= kStreamChunk, "the ring holds a chunk and a window of prefix sums");

// Where the ring keeps P(position): modulo kStreamRing, with one unused double after every 8.
// Thread t writes the prefix sums of positions 8t .. 8t + 7, and reads those of 8t + c ..
// 8t + c + 7 for its outputs; without the padding, the 32 threads of a warp accessing their
// k-th ones would be 64 bytes apart, 16 of them in each pair of banks; with it, 72 bytes
// apart whatever c is, and the warp's 32 doubles fill the banks twice.
// [[maybe_unused]]: the student's file calls these only once its step 4e is written.
[[maybe_unused]] __device__ __forceinline__ int ring_slot(long long position) {
    const int slot = static_cast<int>(position & (kStreamRing - 1));
    return slot + (slot >> 3);
}
[[maybe_unused]] constexpr int kStreamRingDoubles = kStreamRing + kStreamRing / 8;

// Block-wide exclusive scan of one double per thread, with warp shuffles: each warp scans
// its 32 values, then every thread adds the totals of the warps before its own, in the same
// order in every thread, so `total` is the same double in all of them. The exclusive value
// is the inclusive one of the lane before, never inclusive − own value, which would round.
[[maybe_unused]] __device__ __forceinline__ void block_exclusive_scan(double value, double& before, double& total,
                                                     double* warp_totals) {
    constexpr unsigned kAll = 0xffffffffu;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    double inclusive = value;
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
        const double up = __shfl_up_sync(kAll, inclusive, delta);
        if (lane >= delta) inclusive += up;
    }
    double exclusive = __shfl_up_sync(kAll, inclusive, 1);
    if (lane == 0) exclusive = 0.0;
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    double warps_before = 0.0, all = 0.0;
    for (int w = 0; w < kMovingAverageBlock / 32; ++w) {
        if (w == warp) warps_before = all;
        all += warp_totals[w];
    }
    before = warps_before + exclusive;
    total = all;
}

}  // namespace

__global__ void __launch_bounds__(kMovingAverageBlock)
    moving_average_stream_kernel(const float* input, float* output, int size, int window, bool vector_input,
                                 bool vector_output) {
    // BEGIN SOLUTION: 4e, step 1 (going further). The block's first output, `first` (a
    //   long long; a block computes kStreamSpan outputs), how many it computes, `outputs`
    //   (the last block computes fewer), and the inputs those read, `inputs` (outputs +
    //   window - 1). In shared memory: the ring of prefix sums, `ring`, kStreamRingDoubles
    //   doubles, and the scan's `warp_totals`, a double per warp. In registers: the carry,
    //   P(base) for the chunk being scanned (0.0: no inputs yet), and P at the start of the
    //   chunk before it, `previous_start` (the ring has no room left for that one).
    __shared__ double ring[kStreamRingDoubles];
    __shared__ double warp_totals[kMovingAverageBlock / 32];
    const long long first = static_cast<long long>(blockIdx.x) * kStreamSpan;
    const long long remaining = static_cast<long long>(size - window + 1) - first;  // outputs from first on
    const int outputs = static_cast<int>(remaining < kStreamSpan ? remaining : kStreamSpan);
    const int inputs = outputs + window - 1;  // the block's inputs: its outputs' windows
    double carry = 0.0, previous_start = 0.0;
    // END SOLUTION

    // BEGIN SOLUTION: 4e, step 2. One round per chunk, base = 0, kStreamChunk, ... while
    //   base < outputs + kStreamChunk (the last round only computes outputs). While base <
    //   inputs: the thread's 8 inputs from first + base + 8 * threadIdx.x (load_items,
    //   vector_input; the two chunks after it are loaded before this one is scanned, to keep
    //   more bytes in flight), summed in double, block_exclusive_scan, and P(q + 1) = carry +
    //   before + x[0] + ... + x[k] into ring[ring_slot(q + 1)] for each of its positions q =
    //   base + 8t + k; then carry += total. __syncthreads() (also in a round without a scan).
    // The two chunks after the current one are loaded before the current one is scanned:
    // two chunks of loads in flight per block while it scans and waits at its barriers
    // (one, measured on the H200, left 4e about 10% slower).
    float next[kPrefixItems], after[kPrefixItems];
    load_items(input, size, first + threadIdx.x * kPrefixItems, vector_input, next);
    if (kStreamChunk < inputs) {
        load_items(input, size, first + threadIdx.x * kPrefixItems + kStreamChunk, vector_input, after);
    }
    const double inverse_window = 1.0 / window;
    for (int base = 0; base < outputs + kStreamChunk; base += kStreamChunk) {
        const double start = carry;  // P(base)
        if (base < inputs) {  // the same for every thread of the block: the scan's barrier is safe
            const int mine = base + threadIdx.x * kPrefixItems;  // the thread's first position
            float x[kPrefixItems];
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) x[k] = next[k], next[k] = after[k];
            if (base + 2 * kStreamChunk < inputs) {
                load_items(input, size, first + mine + 2 * kStreamChunk, vector_input, after);
            }
            double sum = 0.0;
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) sum += x[k];
            double before, total;
            block_exclusive_scan(sum, before, total, warp_totals);
            double p = carry + before;
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) {
                p += x[k];
                ring[ring_slot(mine + k + 1)] = p;
            }
            carry += total;
        }
        // Every P the outputs below read is in the ring.
        __syncthreads();
        // END SOLUTION

        // BEGIN SOLUTION: 4e, step 3. From the second round on, the chunk of outputs before
        //   this one, from out = base - kStreamChunk: the thread's 8 outputs j = out + 8t + k,
        //   each (P(j + window) - P(j)) * (1.0 / window) in double (one multiply, not a dozen
        //   instructions: as 4d), P(j + window) from the ring and P(j) too, except P(out),
        //   which is previous_start.
        if (base >= kStreamChunk) {
            const int out = base - kStreamChunk;  // the chunk of outputs this round computes
            const int j0 = out + threadIdx.x * kPrefixItems;
            float result[kPrefixItems];
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) {
                const int j = j0 + k;
                const double before_window = j == out ? previous_start : ring[ring_slot(j)];
                result[k] = static_cast<float>((ring[ring_slot(j + window)] - before_window) * inverse_window);
            }
            // END SOLUTION

            // BEGIN SOLUTION: 4e, step 4. Store the outputs below `outputs`: two float4
            //   stores when vector_output and all 8 are, else one by one. Every round ends
            //   with previous_start = P(base) (the carry as the round began), then
            //   __syncthreads(), so that every thread is done with the ring when the round
            //   ends. (Strictly, the next round's ring writes come after the barrier in its
            //   block_exclusive_scan, which no thread passes before all have read here: this
            //   barrier keeps the rounds apart even if the writes move ahead of the scan.)
            //| (void)input, (void)output, (void)size, (void)window, (void)vector_input, (void)vector_output;
            if (vector_output && j0 + kPrefixItems <= outputs) {
#pragma unroll
                for (int q = 0; q < kPrefixItems; q += 4) {
                    *reinterpret_cast<float4*>(&output[first + j0 + q]) =
                        make_float4(result[q], result[q + 1], result[q + 2], result[q + 3]);
                }
            } else {
                for (int k = 0; k < kPrefixItems && j0 + k < outputs; ++k) output[first + j0 + k] = result[k];
            }
        }
        previous_start = start;
        // Every thread is done with this round's ring reads (see step 4).
        __syncthreads();
    }
    // END SOLUTION
}

void moving_average_stream(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_stream", input, output, size, window);
    if (window > kStreamMaxWindow) {
        // The ring holds the prefix sums of a chunk and a window of at most kStreamMaxWindow.
        moving_average_prefix(input, output, size, window);
        return;
    }
    const int outputs = size - window + 1;
    const int blocks = static_cast<int>(tutorial::ceil_div(outputs, kStreamSpan));
    // Every thread's first input and first output are a multiple of 8 floats past the
    // arrays' starts (kStreamSpan and kStreamChunk are multiples of 8).
    const auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    moving_average_stream_kernel<<<blocks, kMovingAverageBlock>>>(input, output, size, window, aligned(input),
                                                                   aligned(output));
    CUDA_CHECK_KERNEL("moving_average_stream_kernel");
}
