// Shared memory on the CPU backend: each worker thread's arena, in which a block gets its
// dynamic shared memory and then its __shared__ variables as threads declare them; the
// limits a GPU enforces (48 KiB, or up to 227 KiB after opting in); and the messages for
// an index outside a __shared__ array or outside the launch's dynamic bytes.
#include "block.h"

#include <cstring>
#include <sstream>

namespace emu {
namespace detail {

__thread AccessSite pending_shared_site;

namespace {

std::string array_text(const SharedVariable& v) {
    std::ostringstream out;
    out << "__shared__ " << (v.type_name != nullptr ? v.type_name : "") << (v.type_name != nullptr ? " " : "") << v.name;
    for (std::size_t d = 0; d < v.rank; ++d) out << "[" << v.extents[d] << "]";
    return out.str();
}

}  // namespace

void allocate_shared_arena(BlockRun& b) {
    // Room for the most a kernel may opt in to, and for the alignment of its variables.
    b.arena_size = kSharedPerBlockOptin + 64 * 1024;
    b.arena.reset(static_cast<char*>(::operator new[](b.arena_size, std::align_val_t(1024))));
}

void reset_shared_memory(BlockRun& b, std::size_t dynamic_bytes) {
    b.variables.clear();
    b.static_bytes = 0;
    b.used_shared = dynamic_bytes > 0;
    // Everything starts as 0xFF bytes (NaN floats): a read of a value never written shows.
    b.dynamic_base = b.arena.get();
    b.dynamic_bytes = dynamic_bytes;
    std::memset(b.dynamic_base, 0xFF, b.dynamic_bytes);
    b.arena_used = (b.dynamic_bytes + 15) / 16 * 16;
}

void* shared_storage(const void* key, std::size_t bytes, std::size_t alignment, const char* name,
                     const std::size_t* extents, std::size_t rank, const char* type_name, const char* file, int line) {
    BlockRun& b = block_or_die("a __shared__ variable");
    for (const SharedVariable& v : b.variables) {
        if (v.key == key) return v.address;
    }
    b.static_bytes += bytes;
    b.used_shared = true;
    const std::size_t at = (b.arena_used + alignment - 1) / alignment * alignment;
    std::ostringstream problem;
    if (b.static_bytes > kSharedPerBlock) {
        problem << running_kernel() << " declares " << b.static_bytes << " bytes of __shared__ variables (the last is "
                << name << " at " << file << ":" << line << "), more than the " << kSharedPerBlock
                << " bytes (48 KiB) a block may declare; a GPU compiler rejects this. Above 48 KiB use extern "
                   "__shared__ memory, sized at launch, and opt in with cudaFuncSetAttribute.";
    } else if (b.static_bytes + b.dynamic_bytes > b.run->shared_limit) {
        problem << running_kernel() << " needs " << b.static_bytes << " bytes of __shared__ variables and "
                << b.dynamic_bytes << " bytes of dynamic shared memory per block, more than its limit of "
                << b.run->shared_limit << " bytes (raise it with cudaFuncSetAttribute(kernel, "
                << "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), up to sharedMemPerBlockOptin = "
                << kSharedPerBlockOptin << ").";
    } else if (at + bytes > b.arena_size) {
        problem << running_kernel() << ": too many __shared__ variables for the CPU backend's shared memory.";
    }
    if (!problem.str().empty()) throw KernelFault{cudaErrorInvalidValue, problem.str(), true};
    char* address = b.arena.get() + at;
    std::memset(address, 0xFF, bytes);
    b.arena_used = at + bytes;
    b.variables.push_back(SharedVariable{key, address, bytes, name, extents, rank, type_name, file, line});
    return address;
}

DynamicShared dynamic_shared() {
    BlockRun& b = block_or_die("extern __shared__ memory");
    return DynamicShared{b.dynamic_base, b.dynamic_bytes};
}

void shared_out_of_bounds(const void* array, long long index, std::size_t extent, std::size_t element_bytes,
                          const char* file, int line) {
    BlockRun& b = block_or_die("a __shared__ array");
    std::ostringstream out;
    out << "out-of-bounds shared memory access in " << running_kernel() << ", " << running_thread() << ":\n  "
        << access_site(file, line);
    const char* at = static_cast<const char*>(array);
    const SharedVariable* v = nullptr;
    for (const SharedVariable& candidate : b.variables) {
        if (at >= candidate.address && at < candidate.address + candidate.bytes) v = &candidate;
    }
    // Which dimension of the variable failed, and the indices before it: from the address of
    // the row that was indexed, and the size of one of its elements. None, when the access
    // is through a cast that sees the memory as an array of another shape.
    std::size_t dimension = 0;
    std::string prefix;
    if (v != nullptr && v->rank > 0) {
        std::size_t stride = v->bytes;
        prefix = v->name;
        const std::size_t offset = static_cast<std::size_t>(at - v->address);
        for (; dimension < v->rank; ++dimension) {
            stride /= v->extents[dimension];
            if (stride == element_bytes && v->extents[dimension] == extent) break;
            prefix += "[" + std::to_string(offset / stride % v->extents[dimension]) + "]";
        }
    }
    const char* dynamic = static_cast<const char*>(b.dynamic_base);
    const bool in_dynamic = v == nullptr && dynamic != nullptr && at >= dynamic && at < dynamic + b.dynamic_bytes;
    if (in_dynamic || (v != nullptr && v->rank > 0 && dimension == v->rank)) {
        // Shared memory seen as an array of its own shape (a cast to a pointer to an array).
        std::ostringstream memory;
        if (in_dynamic) {
            memory << "the dynamic shared memory (extern __shared__)";
        } else {
            memory << array_text(*v) << " (declared at " << v->file << ":" << v->line << ")";
        }
        const char* start = in_dynamic ? dynamic : v->address;
        out << "index " << index << " is outside a dimension of " << extent << " elements of " << memory.str()
            << " seen as an array (the row indexed starts at its byte " << (at - start) << ").";
    } else if (v == nullptr || v->rank == 0) {
        out << "index " << index << " is outside a __shared__ array of " << extent << " elements.";
    } else {
        out << prefix << "[" << index << "]: index " << index << " is outside " << array_text(*v) << " (declared at "
            << v->file << ":" << v->line << ")";
        if (v->rank > 1) out << ", whose dimension " << dimension + 1;
        out << " runs from 0 to " << extent - 1 << ".";
    }
    throw KernelFault{cudaErrorIllegalAddress, out.str()};
}

void dynamic_shared_out_of_bounds(const char* name, long long index, std::size_t element_size, const char* type_name,
                                  std::size_t bytes, const char* file, int line) {
    // Only to say so when it is used outside a kernel: the message needs the running kernel.
    block_or_die("extern __shared__ memory");
    std::ostringstream out;
    out << "out-of-bounds shared memory access in " << running_kernel() << ", " << running_thread() << ":\n  "
        << access_site(file, line) << name
        << "[" << index << "] is outside the dynamic shared memory `extern __shared__ " << (type_name ? type_name : "T")
        << " " << name << "[]`: the launch gave " << bytes << " bytes (" << bytes / element_size << " "
        << (type_name ? std::string(type_name) + "s" : "elements of " + std::to_string(element_size) + " bytes")
        << "), "
        << (current_block != nullptr && current_block->run->request->launched_ex
                ? "config.dynamicSmemBytes of cudaLaunchKernelEx()"
                : "the third parameter of <<<grid, block, bytes>>>")
        << ", so its indices run from 0 to " << static_cast<long long>(bytes / element_size) - 1 << ".\n  ";
    // An index past 2^31 is most often a negative one computed in unsigned arithmetic: a
    // larger size on the host would not help.
    if (index < 0 || (index >= (1LL << 31) && index < (1LL << 32))) {
        out << "The index is negative" << (index < 0 ? "" : " as a 32-bit int, " + std::to_string(static_cast<int>(static_cast<unsigned>(index))) +
                                                                  ", computed in unsigned arithmetic")
            << ": an offset subtracted from a smaller one, such as a base, a rank or a block's first element "
               "that is too large.";
    } else {
        out << "Either the index runs past what the block needs (check how it is computed and bounded), or the "
               "launch gives too little: size it on the host for everything a block stores there (a halo too, "
               "where there is one).";
    }
    throw KernelFault{cudaErrorIllegalAddress, out.str()};
}

}  // namespace detail
}  // namespace emu
