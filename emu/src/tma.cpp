// Tensor maps (cuTensorMapEncodeTiled) and the Tensor Memory Accelerator: bulk and TMA copies,
// checked as the driver and the GPU check them, landing through the mbarrier machinery of
// async_copy.cpp (async_copy.h: what the two share).
#include "async_copy.h"

namespace emu {
namespace detail {
namespace {

constexpr std::uint64_t kTensorMapMagic = 0x454d552d544d4150ull;  // "EMU-TMAP"

// The fields of a tensor map, as cuTensorMapEncodeTiled() packs them into its 16 words.
struct TensorMap {
    unsigned rank, element_bytes;
    CUtensorMapDataType type;
    CUtensorMapInterleave interleave;
    CUtensorMapSwizzle swizzle;
    CUtensorMapFloatOOBfill fill;
    std::uint64_t address;
    std::uint64_t dims[5];
    std::uint64_t strides[5];  // bytes; strides[0] is the element size
    unsigned box[5], element_strides[5];
};

void pack(const TensorMap& m, CUtensorMap* out) {
    std::uint64_t* q = out->opaque;
    std::memset(q, 0, sizeof out->opaque);
    q[0] = kTensorMapMagic;
    q[1] = m.address;
    q[2] = std::uint64_t(m.type) | std::uint64_t(m.interleave) << 8 | std::uint64_t(m.swizzle) << 16 |
           std::uint64_t(m.fill) << 24 | std::uint64_t(m.rank) << 32 | std::uint64_t(m.element_bytes) << 40;
    for (unsigned i = 0; i < 5; ++i) {
        q[3 + i] = m.dims[i];
        if (i < 4) q[8 + i] = m.strides[i + 1];
    }
    for (unsigned i = 0; i < 5; ++i) {
        q[12] |= std::uint64_t(m.box[i]) << (12 * i);
        q[13] |= std::uint64_t(m.element_strides[i]) << (8 * i);
    }
}

bool unpack(const CUtensorMap* in, TensorMap& m) {
    const std::uint64_t* q = in->opaque;
    if (q[0] != kTensorMapMagic) return false;
    m.address = q[1];
    m.type = CUtensorMapDataType(q[2] & 0xff);
    m.interleave = CUtensorMapInterleave(q[2] >> 8 & 0xff);
    m.swizzle = CUtensorMapSwizzle(q[2] >> 16 & 0xff);
    m.fill = CUtensorMapFloatOOBfill(q[2] >> 24 & 0xff);
    m.rank = unsigned(q[2] >> 32 & 0xff);
    m.element_bytes = unsigned(q[2] >> 40 & 0xff);
    m.strides[0] = m.element_bytes;
    for (unsigned i = 0; i < 5; ++i) {
        m.dims[i] = q[3 + i];
        if (i < 4) m.strides[i + 1] = q[8 + i];
        m.box[i] = unsigned(q[12] >> (12 * i) & 0xfff);
        m.element_strides[i] = unsigned(q[13] >> (8 * i) & 0xff);
    }
    return true;
}

unsigned element_bytes_of(CUtensorMapDataType type) {
    switch (type) {
        case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
        case CU_TENSOR_MAP_DATA_TYPE_UINT16:
        case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
        case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
        case CU_TENSOR_MAP_DATA_TYPE_UINT32:
        case CU_TENSOR_MAP_DATA_TYPE_INT32:
        case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
        case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
        case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
        case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
        case CU_TENSOR_MAP_DATA_TYPE_UINT64:
        case CU_TENSOR_MAP_DATA_TYPE_INT64:
        case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
        default: return 0;  // the packed 4- and 6-bit types
    }
}

bool is_float(CUtensorMapDataType type) {
    return type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 || type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ||
           type == CU_TENSOR_MAP_DATA_TYPE_FLOAT64 || type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 ||
           type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ || type == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 ||
           type == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
}

CUresult refuse(CUresult code, const std::string& rule) {
    std::fprintf(stderr, "CPU backend: cuTensorMapEncodeTiled() returns %s: %s\n",
                 code == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_NOT_SUPPORTED",
                 rule.c_str());
    return code;
}

}  // namespace

void async_check_remote(const BlockRun& owner, const char* at, std::size_t bytes, const char* what) {
    if (!owner.async || owner.async->in_flight == 0) return;
    const AsyncState& s = *owner.async;
    const std::size_t offset = static_cast<std::size_t>(at - owner.arena.get());
    for (std::size_t i = 0; i < bytes && offset + i < s.owner.size(); ++i) {
        if (s.owner[offset + i] == 0) continue;
        const Copy& c = s.copies[s.owner[offset + i] - 1];
        std::ostringstream out;
        out << "distributed shared memory used before the asynchronous copy into it was waited for, " << where()
            << ":\n  " << what << " reaches " << shared_place(owner, at) << " of block " << coordinates(owner.index)
            << ", which " << c.api << " issued at " << site(c.file, c.line) << " by " << thread_name(owner, c.thread)
            << " of that block has yet to write (" << completion(owner, c)
            << ").\n  On a GPU the access may see the bytes before or after the copy lands. The owner must wait for "
               "its copies, then cluster.sync(), before another block reads them; and a block must not refill bytes "
               "another block may still be reading (a tile refilled before the cluster.sync() that shows every block "
               "finished with it).";
        stop(cudaErrorLaunchFailure, out.str());
    }
}

}  // namespace detail

namespace async {
using namespace ::emu::detail;

void tensor_copy(void* dst, const CUtensorMap_st* map, const int* coords, unsigned rank, void* address, const char* api,
                 const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    BarrierState& bar = lookup(b, address, api, file, line);
    TensorMap m;
    if (map == nullptr || !unpack(map, m)) {
        stop(cudaErrorLaunchFailure, "invalid tensor map " + where() + ":\n  " + std::string(api) + " at " +
                                         site(file, line) +
                                         " is given a tensor map that cuTensorMapEncodeTiled() did not make (pass the "
                                         "address of a `const __grid_constant__ CUtensorMap` kernel parameter).");
    }
    if (m.rank != rank) {
        stop(cudaErrorLaunchFailure, "tensor map of another rank " + where() + ":\n  " + std::string(api) + " at " +
                                         site(file, line) + " gives " + std::to_string(rank) +
                                         " coordinates to a tensor map of rank " + std::to_string(m.rank) + ".");
    }
    char* d = static_cast<char*>(dst);
    if (reinterpret_cast<std::uintptr_t>(d) % 128 != 0) {
        misaligned(api, file, line,
                   "the shared destination " + address_text(d) + " (" + shared_place(b, d) +
                       ") is not 128-byte aligned: a TMA copy writes to 128-byte aligned shared memory (declare it "
                       "__shared__ alignas(128)).");
    }
    // The box, element by element: innermost coordinate first, elementStrides apart (the
    // first dimension's stride is ignored, as without interleaving on a GPU).
    std::size_t count[5] = {1, 1, 1, 1, 1}, elements = 1;
    for (unsigned i = 0; i < rank; ++i) {
        const unsigned step = i == 0 ? 1 : m.element_strides[i];
        count[i] = (m.box[i] + step - 1) / step;
        elements *= count[i];
    }
    const std::size_t bytes = elements * m.element_bytes;
    if (!in_shared(b, d, bytes)) {
        stop(cudaErrorIllegalAddress, "asynchronous copy outside shared memory " + where() + ":\n  at " +
                                          site(file, line) + "\n  " + api + " writes a box of " +
                                          std::to_string(bytes) + " bytes from " + shared_place(b, d) +
                                          ", past the end of the block's shared memory.");
    }
    const Allocation* a = find_allocation(reinterpret_cast<const void*>(m.address));
    std::vector<unsigned char> data(bytes);
    const std::size_t base = static_cast<std::size_t>(d - b.arena.get());
    const unsigned swizzle_bits = m.swizzle == CU_TENSOR_MAP_SWIZZLE_32B ? 1 : m.swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 2
                                  : m.swizzle == CU_TENSOR_MAP_SWIZZLE_128B                                     ? 3
                                                                                                                : 0;
    wgmma_check_refill(b, d, bytes, api, file, line);
    // What the copy writes at the start of each 16-byte chunk, for the wgmma's check of its
    // descriptors (the copy is the next one issue() makes).
    if (s.sources.empty()) s.sources.resize(b.arena_size / 16);
    const unsigned next_copy = static_cast<unsigned>(s.copies.size()) + 1;
    s.any_sources = true;
    std::uint64_t in_bounds_bytes = 0;
    std::size_t k[5] = {0, 0, 0, 0, 0};
    for (std::size_t e = 0; e < elements; ++e) {
        std::size_t rest = e;
        for (unsigned i = 0; i < rank; ++i) {
            k[i] = rest % count[i];
            rest /= count[i];
        }
        bool inside = true;
        std::uint64_t offset = 0;
        for (unsigned i = 0; i < rank; ++i) {
            const long long c = static_cast<long long>(coords[i]) + static_cast<long long>(k[i]) * (i == 0 ? 1 : m.element_strides[i]);
            if (c < 0 || static_cast<unsigned long long>(c) >= m.dims[i]) inside = false;
            offset += static_cast<std::uint64_t>(c) * m.strides[i];
        }
        // Where the element goes: dense, then the swizzle's XOR of 16-byte chunk bits with
        // 128-byte row bits of its shared address.
        std::size_t at = base + e * m.element_bytes;
        if (swizzle_bits != 0) at ^= ((at >> 7) & ((1u << swizzle_bits) - 1)) << 4;
        unsigned char* out = data.data() + (at - base);
        if (at % 16 == 0) {
            s.sources[at / 16] = ChunkSource{next_copy, coords[0] + static_cast<long long>(k[0]),
                                             rank > 1 ? coords[1] + static_cast<long long>(k[1]) * m.element_strides[1] : 0};
        }
        if (!inside) {
            if (m.fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) {
                std::memset(out, 0xFF, m.element_bytes);
                out[m.element_bytes - 1] = 0x7F;  // a quiet NaN, positive
            } else {
                std::memset(out, 0, m.element_bytes);
            }
            continue;
        }
        const std::uint64_t from = m.address + offset;
        if (a == nullptr || from < a->begin || from + m.element_bytes > a->begin + a->bytes) {
            std::ostringstream message;
            message << "out-of-bounds global memory access " << where() << ":\n  at " << site(file, line) << "\n  "
                    << api << " reads the tensor's element (";
            for (unsigned i = 0; i < rank; ++i) {
                message << (i ? ", " : "") << static_cast<long long>(coords[i]) + static_cast<long long>(k[i]);
            }
            message << ") inside the tensor map's globalDim, at ";
            if (a == nullptr) {
                message << "an address in no cudaMalloc buffer";
            } else {
                message << "byte offset " << static_cast<long long>(from - a->begin) << " of the cudaMalloc buffer of "
                        << a->bytes << " bytes its globalAddress points into, past its end";
            }
            message << ": check the tensor map's globalDim and globalStrides against the buffer.";
            stop(cudaErrorIllegalAddress, message.str());
        }
        std::memcpy(out, reinterpret_cast<const void*>(from), m.element_bytes);
        in_bounds_bytes += m.element_bytes;
    }
    const unsigned id = issue(b, d, nullptr, bytes, 0, api, file, line, &data);
    s.copies[id].tensor = m.address;
    s.copies[id].swizzle_bytes = swizzle_bits == 0 ? 0 : 16u << swizzle_bits;
    attach(s, bar, id);
    bar.tx_done += static_cast<std::int64_t>(bytes);
    bar.copy_file = file;
    bar.copy_line = line;
    traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::tensor, reinterpret_cast<const void*>(m.address),
                                     in_bounds_bytes, d, bytes, file, line);
    try_complete(b, s, bar);
}

}  // namespace async
}  // namespace emu

CUresult cuTensorMapEncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                const cuuint32_t* boxDim, const cuuint32_t* elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
    using emu::detail::refuse;
    const std::string rank_text = std::to_string(tensorRank);
    if (tensorMap == nullptr) return refuse(CUDA_ERROR_INVALID_VALUE, "tensorMap is null.");
    if (reinterpret_cast<std::uintptr_t>(tensorMap) % 64 != 0) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "the tensorMap's address must be aligned to 64 bytes.");
    }
    if (tensorRank < 1 || tensorRank > 5) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "tensorRank is " + rank_text + "; it must be from 1 to 5.");
    }
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE) {
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "the CPU backend supports interleave CU_TENSOR_MAP_INTERLEAVE_NONE only.");
    }
    const unsigned element = emu::detail::element_bytes_of(tensorDataType);
    if (element == 0) {
        return refuse(tensorDataType > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B ? CUDA_ERROR_INVALID_VALUE
                                                                             : CUDA_ERROR_NOT_SUPPORTED,
                      "tensorDataType " + std::to_string(int(tensorDataType)) +
                          " is not one of the whole-byte element types the CPU backend supports.");
    }
    if (swizzle == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B || swizzle == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B ||
        swizzle == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B) {
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "the CPU backend supports swizzle NONE, 32B, 64B and 128B only.");
    }
    if (swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B || l2Promotion > CU_TENSOR_MAP_L2_PROMOTION_L2_256B ||
        oobFill > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "swizzle, l2Promotion or oobFill is not a value of its enumeration.");
    }
    if (reinterpret_cast<std::uintptr_t>(globalAddress) % 16 != 0) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "globalAddress must be 16-byte aligned.");
    }
    if (globalDim == nullptr || boxDim == nullptr || elementStrides == nullptr ||
        (tensorRank > 1 && globalStrides == nullptr)) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "globalDim, globalStrides, boxDim or elementStrides is null.");
    }
    emu::detail::TensorMap m{};
    m.rank = tensorRank;
    m.element_bytes = element;
    m.type = tensorDataType;
    m.interleave = interleave;
    m.swizzle = swizzle;
    m.fill = oobFill;
    m.address = reinterpret_cast<std::uintptr_t>(globalAddress);
    m.strides[0] = element;
    for (unsigned i = 0; i < tensorRank; ++i) {
        const std::string at = "[" + std::to_string(i) + "]";
        if (globalDim[i] == 0 || globalDim[i] > (1ull << 32)) {
            return refuse(CUDA_ERROR_INVALID_VALUE, "globalDim" + at + " is " + std::to_string(globalDim[i]) +
                                                        "; it must be from 1 to 2^32.");
        }
        if (boxDim[i] == 0 || boxDim[i] > 256) {
            return refuse(CUDA_ERROR_INVALID_VALUE,
                          "boxDim" + at + " is " + std::to_string(boxDim[i]) + "; it must be from 1 to 256.");
        }
        if (elementStrides[i] == 0 || elementStrides[i] > 8) {
            return refuse(CUDA_ERROR_INVALID_VALUE, "elementStrides" + at + " is " + std::to_string(elementStrides[i]) +
                                                        "; it must be from 1 to 8.");
        }
        if (i + 1 < tensorRank) {
            const cuuint64_t stride = globalStrides[i];
            if (stride % 16 != 0 || stride >= (1ull << 40)) {
                return refuse(CUDA_ERROR_INVALID_VALUE, "globalStrides" + at + " is " + std::to_string(stride) +
                                                            " bytes; each stride must be a multiple of 16 and less "
                                                            "than 2^40.");
            }
            m.strides[i + 1] = stride;
        }
        m.dims[i] = globalDim[i];
        m.box[i] = boxDim[i];
        m.element_strides[i] = elementStrides[i];
    }
    if (boxDim[0] * element % 16 != 0) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "the box's inner dimension, boxDim[0] * " + std::to_string(element) +
                                                    " = " + std::to_string(boxDim[0] * element) +
                                                    " bytes, must be a multiple of 16 bytes.");
    }
    const unsigned span = swizzle == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 64
                          : swizzle == CU_TENSOR_MAP_SWIZZLE_128B                                          ? 128
                                                                                                           : 0;
    if (span != 0 && boxDim[0] * element > span) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "with a " + std::to_string(span) +
                                                    "-byte swizzle the box's inner dimension, " +
                                                    std::to_string(boxDim[0] * element) + " bytes, must be at most " +
                                                    std::to_string(span) + " bytes.");
    }
    if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !emu::detail::is_float(tensorDataType)) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType.");
    }
    emu::detail::pack(m, tensorMap);
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
    if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
        case CUDA_SUCCESS: *text = "no error"; return CUDA_SUCCESS;
        case CUDA_ERROR_INVALID_VALUE: *text = "invalid argument"; return CUDA_SUCCESS;
        case CUDA_ERROR_NOT_FOUND: *text = "named symbol not found"; return CUDA_SUCCESS;
        case CUDA_ERROR_NOT_SUPPORTED: *text = "operation not supported"; return CUDA_SUCCESS;
    }
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags, cudaDriverEntryPointQueryResult* driverStatus) {
    if (symbol == nullptr || funcPtr == nullptr || flags > cudaEnablePerThreadDefaultStream) {
        return emu::detail::fail(cudaErrorInvalidValue, "cudaGetDriverEntryPointByVersion(): symbol and funcPtr must "
                                                        "not be null, and flags must be a cudaGetDriverEntryPointFlags.");
    }
    struct Entry {
        const char* name;
        unsigned since;
        void* function;
    };
    const Entry entries[] = {
        {"cuTensorMapEncodeTiled", 12000, reinterpret_cast<void*>(&cuTensorMapEncodeTiled)},
        {"cuGetErrorString", 6000, reinterpret_cast<void*>(&cuGetErrorString)},
    };
    *funcPtr = nullptr;
    cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
    for (const Entry& e : entries) {
        if (std::strcmp(e.name, symbol) != 0) continue;
        result = cudaVersion >= e.since ? cudaDriverEntryPointSuccess : cudaDriverEntryPointVersionNotSufficent;
        if (result == cudaDriverEntryPointSuccess) *funcPtr = e.function;
    }
    if (driverStatus != nullptr) *driverStatus = result;
    return cudaSuccess;
}
