/// @file launch.h
/// @brief `kernel<<<grid, block, bytes, stream>>>(args...)` on the CPU backend.
///
/// The translator rewrites a launch into
///   `::emu::launch(kernel, "kernel", __FILE__, __LINE__)(grid, block, bytes, stream)(args...)`.
/// The arguments are converted to the kernel's parameter types and copied, as CUDA copies
/// them at launch; then emu/src/launch.cpp checks the configuration and runs the grid.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

namespace emu {
/// @cond EMU_INTERNALS
namespace detail {

/// @brief Runs one CUDA thread's share of a kernel: called on each thread's fiber.
class KernelBody {
public:
    /// @brief Call the kernel with the launch's arguments.
    virtual void run() const = 0;

protected:
    ~KernelBody() = default;
};

/// @brief A pointer argument of a launch, so that a message can print its elements.
struct PointerArgument {
    const void* pointer;          ///< the argument's value
    std::size_t element_size;     ///< sizeof(T), 1 for void
    const char* type_name;        ///< "float", or null when not a known type
    void (*print)(const void* element, char* out, std::size_t size);  ///< null when unknown
};

/// @brief One launch, as written in the source.
struct LaunchRequest {
    const void* kernel;           ///< identifies the kernel for cudaFuncSetAttribute()
    const char* kernel_text;      ///< the kernel as written at the launch, e.g. "tiled_gemm_kernel<TILE>"
    const char* file;             ///< where the launch is
    int line;                     ///< where the launch is
    dim3 grid;                    ///< blocks
    dim3 block;                   ///< threads per block
    std::size_t shared_bytes;     ///< dynamic shared memory per block
    const PointerArgument* pointers;  ///< the pointer arguments
    std::size_t pointer_count;        ///< how many
    bool cluster_given = false;       ///< cudaLaunchKernelEx() set cudaLaunchAttributeClusterDimension
    dim3 cluster;                     ///< if so: blocks per cluster
    bool launched_ex = false;         ///< launched by cudaLaunchKernelEx(), not <<<...>>> (last: brace-initialised without it)
};

/// @brief Check the configuration, run the grid, record errors (emu/src/launch.cpp);
/// return the launch error (cudaSuccess when the grid ran, whatever it did).
cudaError_t launch(const LaunchRequest& request, const KernelBody& body);

/// @brief The launch configuration of cudaLaunchKernelEx() in @p request: the grid, block,
/// dynamic shared memory and cluster attribute of @p config; cudaSuccess or the error
/// an attribute gives (emu/src/cluster.cpp). @p text is the call's arguments as written.
cudaError_t configure_launch_ex(LaunchRequest& request, const cudaLaunchConfig_t* config, const char* text);

/// @brief Print the element of type T at @p element into @p out.
template <class T>
void print_element(const void* element, char* out, std::size_t size) {
    T value;
    std::memcpy(&value, element, sizeof(T));
    if constexpr (std::is_floating_point<T>::value) {
        std::snprintf(out, size, "%.9g", static_cast<double>(value));
    } else if constexpr (std::is_signed<T>::value) {
        std::snprintf(out, size, "%lld", static_cast<long long>(value));
    } else {
        std::snprintf(out, size, "%llu", static_cast<unsigned long long>(value));
    }
}

template <class T>
PointerArgument describe_pointer(T* pointer) {
    if constexpr (std::is_void<T>::value || std::is_function<T>::value) {
        return PointerArgument{reinterpret_cast<const void*>(pointer), 1, nullptr, nullptr};
    } else {
        // Only numbers print; print_element<T> must not even be instantiated for a struct.
        if constexpr (std::is_arithmetic<std::remove_cv_t<T>>::value) {
            return PointerArgument{pointer, sizeof(T), type_name<T>, &print_element<std::remove_cv_t<T>>};
        } else {
            return PointerArgument{pointer, sizeof(T), type_name<T>, nullptr};
        }
    }
}

/// @brief The body for a kernel with parameters @p P: the kernel and a copy of the arguments.
template <class... P>
class KernelCall final : public KernelBody {
public:
    template <class... A>
    KernelCall(void (*kernel)(P...), A&&... args) : kernel_(kernel), arguments_{std::forward<A>(args)...} {}

    void run() const override { std::apply(kernel_, arguments_); }

    /// @brief Append the pointer arguments to @p out (room for sizeof...(P)); return the count.
    std::size_t describe_pointers(PointerArgument* out) const {
        std::size_t count = 0;
        std::apply([&](const auto&... argument) { (add(argument, out, count), ...); }, arguments_);
        return count;
    }

private:
    template <class T>
    static void add(const T& argument, PointerArgument* out, std::size_t& count) {
        if constexpr (std::is_pointer<T>::value) {
            out[count++] = describe_pointer(argument);
        }
    }

    void (*kernel_)(P...);
    std::tuple<std::decay_t<P>...> arguments_;
};

}  // namespace detail
/// @endcond

/// @brief A kernel with its launch configuration, waiting for its arguments.
template <class... P>
class ConfiguredLaunch {
public:
    /// @brief Remember @p kernel and its configuration in @p request.
    ConfiguredLaunch(void (*kernel)(P...), detail::LaunchRequest request) : kernel_(kernel), request_(request) {}

    /// @brief Launch: convert and copy @p args, then run the grid to completion; return
    /// the launch's error (a configuration the GPU would refuse), cudaSuccess otherwise.
    template <class... A>
    cudaError_t operator()(A&&... args) {
        static_assert(sizeof...(A) == sizeof...(P), "the launch passes a different number of arguments than the kernel has parameters");
        const detail::KernelCall<P...> call(kernel_, std::forward<A>(args)...);
        detail::PointerArgument pointers[sizeof...(P) + 1];
        request_.pointers = pointers;
        request_.pointer_count = call.describe_pointers(pointers);
        return detail::launch(request_, call);
    }

private:
    void (*kernel_)(P...);
    detail::LaunchRequest request_;
};

/// @brief A kernel named at a launch site, waiting for its configuration.
template <class... P>
class Launcher {
public:
    /// @brief Remember @p kernel, written as @p text at @p file:@p line.
    Launcher(void (*kernel)(P...), const char* text, const char* file, int line)
        : kernel_(kernel), text_(text), file_(file), line_(line) {}

    /// @brief The `<<<grid, block, bytes, stream>>>` part; the stream is accepted and ignored
    /// (everything runs in order on the CPU backend).
    ConfiguredLaunch<P...> operator()(dim3 grid, dim3 block, std::size_t shared_bytes = 0, cudaStream_t = 0) const {
        detail::LaunchRequest request{reinterpret_cast<const void*>(kernel_), text_, file_, line_, grid, block,
                                      shared_bytes, nullptr, 0, false, dim3()};
        return ConfiguredLaunch<P...>(kernel_, request);
    }

private:
    void (*kernel_)(P...);
    const char* text_;
    const char* file_;
    int line_;
};

/// @brief Start a launch of @p kernel, written as @p text at @p file:@p line.
template <class... P>
Launcher<P...> launch(void (*kernel)(P...), const char* text, const char* file, int line) {
    return Launcher<P...>(kernel, text, file, line);
}

/// @brief cudaLaunchKernelEx(&config, kernel, args...) at @p file:@p line, its arguments
/// written as @p text: the kernel with the configuration and attributes of @p config (the
/// cluster dimension among them).
template <class... P, class... A>
cudaError_t launch_kernel_ex(const char* file, int line, const char* text, const cudaLaunchConfig_t* config,
                             void (*kernel)(P...), A&&... args) {
    detail::LaunchRequest request{reinterpret_cast<const void*>(kernel), text, file, line, dim3(), dim3(), 0, nullptr, 0,
                                  false, dim3()};
    if (const cudaError_t error = detail::configure_launch_ex(request, config, text)) return error;
    return ConfiguredLaunch<P...>(kernel, request)(std::forward<A>(args)...);
}

}  // namespace emu

/// @brief Launch a kernel with a configuration and attributes, as CUDA's template does:
/// `cudaLaunchKernelEx(&config, kernel, args...)`. A macro, so that messages can name
/// where the launch is written.
#define cudaLaunchKernelEx(...) ::emu::launch_kernel_ex(__FILE__, __LINE__, #__VA_ARGS__, __VA_ARGS__)
