"""Plant one mistake a student makes in chapter 7's 7c, chapter 8's 8b or chapter 6's 6c, in the file given:
python3 plant_mistake.py FILE KIND (tests/workflow/planted_mistakes.sh)."""
import sys

MISTAKES = {
    # The barrier between storing a phase's tiles and reading them, left out.
    "barrier-after-store": ("store_tile_b<BN, BK, kThreads>(B_tile, b_quads);\n        __syncthreads();",
                            "store_tile_b<BN, BK, kThreads>(B_tile, b_quads);"),
    # The barrier at the end of a phase, before the next phase overwrites the tiles, left out.
    "barrier-at-end": ("            }\n        }\n        __syncthreads();\n    }\n    store_block_c<TM, TN, VECTOR_B>",
                       "            }\n        }\n    }\n    store_block_c<TM, TN, VECTOR_B>"),
    # float4 loads of a tile's rows past the matrix (A's past M, B's past K): a read past the
    # input that no output uses.
    "float4-past-input": ("const bool inside = row0 + ROWS <= rows && col0 + COLS <= cols;",
                          "const bool inside = col0 + COLS <= cols;"),
    # Chapter 8's 8b: the stage after the one consumer_wait() waited for is read (a stage
    # index that runs ahead), at every stage count.
    "stage-ahead": ("const int stage = phase % STAGES;\n        sum = multiply_tiles<TILE>(A_tiles[stage], B_tiles[stage], sum);\n"
                    "        pipeline.consumer_release();",
                    "const int stage = (phase + 1) % STAGES;\n        sum = multiply_tiles<TILE>(A_tiles[stage], B_tiles[stage], sum);\n"
                    "        pipeline.consumer_release();"),
    # Chapter 8's 8b: no consumer_wait() before reading the stage, at every stage count: the
    # CPU backend's one finding at all 126 shapes, to be shown once.
    "stage-not-waited": ("        cuda::pipeline_consumer_wait_prior<STAGES - 2>(pipeline);\n",
                         ""),
    # Chapter 6's 6c: the first warp's sum of the warps' sums called by only the lanes that
    # hold one, with warp_sum's full mask: the other lanes never reach the shuffles.
    "shuffle-some-lanes": ("    if (warp == 0) {\n        value = lane < kReduceBlock / 32 ? warp_sums[lane] : 0.0f;\n"
                           "        value = warp_sum(value);\n    }\n",
                           "    if (warp == 0 && lane < kReduceBlock / 32) {\n        value = warp_sums[lane];\n"
                           "        value = warp_sum(value);\n    }\n"),
    # Chapter 6's 6c: the float4 loop's count taken from all n elements, not those after the
    # scalar head: its last float4 reads past the end of the input.
    "float4-ignores-head": ("const long long vectors = (n - head) / 4;", "const long long vectors = n / 4;"),
}

path, kind = sys.argv[1], sys.argv[2]
text = open(path).read()
old, new = MISTAKES[kind]
if text.count(old) != 1:
    sys.exit(f"plant_mistake.py: the code {kind} changes is not in {path} once (found {text.count(old)} times)")
open(path, "w").write(text.replace(old, new))
