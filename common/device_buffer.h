/// @file device_buffer.h
/// @brief DeviceBuffer: GPU memory that frees itself, with checked copies to and from the host.
#pragma once

#include "cuda_check.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tutorial {

/// @brief How a DeviceBuffer gets and returns its memory: cudaMalloc and cudaFree.
struct PlainAllocation {
    /// @brief cudaMalloc, checked.
    static void allocate(void** pointer, std::size_t bytes) { CUDA_CHECK(cudaMalloc(pointer, bytes)); }
    /// @brief cudaFree, unchecked: it runs in destructors.
    static void release(void* pointer) { cudaFree(pointer); }
};

/// @brief In stream order on the default stream: cudaMallocAsync and cudaFreeAsync (ScratchBuffer).
struct StreamOrderedAllocation {
    /// @brief cudaMallocAsync on the default stream, checked.
    static void allocate(void** pointer, std::size_t bytes) { CUDA_CHECK(cudaMallocAsync(pointer, bytes, cudaStream_t{})); }
    /// @brief cudaFreeAsync on the default stream, unchecked: it runs in destructors.
    static void release(void* pointer) { cudaFreeAsync(pointer, cudaStream_t{}); }
};

/// @brief An array of @p T in GPU global memory, owned like a std::vector.
///
/// Allocation, copies and release go through CUDA_CHECK, so a failure throws CudaError
/// instead of leaving a null pointer behind. The buffer is move-only: two owners would
/// free the same memory twice. @p Allocation says how the memory is got and returned.
template <typename T, class Allocation = PlainAllocation>
class DeviceBuffer {
public:
    /// @brief Allocate room for @p count elements (uninitialised; see poison()).
    explicit DeviceBuffer(std::size_t count = 0) : count_(count) {
        if (count_ > 0) {
            Allocation::allocate(reinterpret_cast<void**>(&data_), bytes());
        }
    }

    /// @brief Allocate and upload a copy of @p host.
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }

    ~DeviceBuffer() {
        // Never throw from a destructor: a failure here would hide the exception that
        // is unwinding the stack, which is the one worth reading.
        if (data_ != nullptr) {
            Allocation::release(data_);
        }
    }

    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    /// @brief Take over @p other's memory, leaving it empty.
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}

    /// @brief Swap memory with @p other, which frees this buffer's old memory when it goes.
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }

    /// @brief Device pointer to the first element (null for an empty buffer).
    T* data() noexcept { return data_; }
    /// @copydoc data()
    const T* data() const noexcept { return data_; }
    /// @brief Number of elements.
    std::size_t size() const noexcept { return count_; }
    /// @brief Size in bytes.
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }

    /// @brief Copy @p host to the device; its size must equal size().
    void upload(const std::vector<T>& host) {
        if (host.size() != count_) {
            throw std::invalid_argument("DeviceBuffer::upload: host has " + std::to_string(host.size()) +
                                        " elements, the buffer " + std::to_string(count_));
        }
        if (count_ > 0) {
            CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
        }
    }

    /// @brief Copy the whole buffer back to the host.
    std::vector<T> download() const {
        std::vector<T> host(count_);
        if (count_ > 0) {
            CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
        }
        return host;
    }

    /// @brief Set every byte to @p byte.
    ///
    /// Tests poison outputs before each run so that an element the kernel never
    /// writes cannot pass by accident. The default 0xFF makes every float a NaN.
    void poison(std::uint8_t byte = 0xFF) {
        if (count_ > 0) {
            CUDA_CHECK(cudaMemset(data_, byte, bytes()));
        }
    }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

/// @brief Scratch memory for the work that a function enqueues on the default stream,
/// allocated and freed in stream order (cudaMallocAsync, cudaFreeAsync).
///
/// Such a function returns before its kernels run; the memory is freed after them in the
/// stream's order, without a synchronisation, and the driver's pool hands it to the next
/// call. A plain DeviceBuffer's cudaFree would wait for the GPU on every call, and its
/// cudaMalloc map fresh memory.
template <typename T>
using ScratchBuffer = DeviceBuffer<T, StreamOrderedAllocation>;

/// @brief Elements of guard that guarded_input() puts after the input on a GPU: more than a
/// 16-byte vector of any element type reaches past an input's end.
#if defined(TUTORIAL_EMU)
constexpr std::size_t kGuardElements = 0;
#else
constexpr std::size_t kGuardElements = 16;
#endif

/// @brief @p values uploaded @p offset elements into a fresh allocation, with every element
/// before them set to @p guard, and on a GPU kGuardElements more after them. The input
/// starts at data() + offset.
///
/// A kernel that reads before or past its input then reads guard values, and its result
/// shows it on a GPU too: compute-sanitizer's memcheck reports nothing for a read that stays
/// inside an allocation, and fresh device memory is often zero, which adds nothing to a sum.
/// A NaN guard makes any float result that read one NaN. The CPU backend checks every access
/// against the allocation and names a read past its end: there the allocation ends with the
/// input, so that such a read is one.
template <typename T>
DeviceBuffer<T> guarded_input(const std::vector<T>& values, std::size_t offset, T guard) {
    std::vector<T> host(offset, guard);
    host.reserve(offset + values.size() + kGuardElements);
    host.insert(host.end(), values.begin(), values.end());
    host.insert(host.end(), kGuardElements, guard);
    return DeviceBuffer<T>(host);
}

}  // namespace tutorial
