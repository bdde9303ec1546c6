// cu2cpp: translate a CUDA .cu file into C++ that g++ compiles for the CPU backend.
//
//   cu2cpp chapters/02-tiled-gemm/tiled_gemm.cu build/emu/.../tiled_gemm.cu.cpp
//
// Most of CUDA is handled by macros and templates in emu/include. Some constructs are
// not C++ and cannot be: they are rewritten here, on the tokens, leaving everything else
// byte for byte as it was.
//
//  1. A launch `kernel<TILE><<<grid, block, bytes>>>(args)` becomes
//     `::emu::launch(kernel<TILE>, "kernel<TILE>", __FILE__, __LINE__)(grid, block, bytes)(args)`.
//  2. A `__shared__` declaration becomes a reference to the block's instance:
//     `__shared__ float tile[16][16];` becomes
//     `auto& tile = ::emu::shared_variable<::emu::shared_array<float, (16), (16)>>([] {}, "tile", __FILE__, __LINE__);`
//     and `extern __shared__ float cache[];` becomes
//     `::emu::dynamic_shared_array<float> cache("cache");`. An `alignas(n)` or `__align__(n)`
//     of the declaration is passed on, so that the variable keeps it (a TMA destination
//     must be 128-byte aligned).
//  3. In a `__global__` function's body, each named pointer parameter is shadowed by a
//     bounds-checked ::emu::global_ptr of the same name. The signature is unchanged, so
//     declarations elsewhere (headers) still match. The body starts by telling the backend
//     the kernel's signature and, for `__cluster_dims__(x, y, z)`, its cluster shape.
//  4. Where such a parameter or a `__shared__` array is indexed, `A[i]` becomes
//     `::emu::at(A, __FILE__, __LINE__, 1)[i]` (1: the subscripts that follow), so that an
//     access outside the buffer is reported at its own line. So are the reference
//     parameters of a `__device__` function (`const Tile& A_tile`, or a checked pointer
//     passed by value as a template's `Matrix C`): a helper that takes a kernel's
//     `__shared__` tile or pointer then reports its own lines too (emu::at() leaves any
//     other type as it is).
//     So is a reference declared as shared memory seen as an array, `auto& stages =
//     *reinterpret_cast<float (*)[3][64][20]>(bytes);`, from its declaration on.
//  5. `reinterpret_cast<T*>(p)` becomes `::emu::pointer_cast<T*>(p)`, and a C-style cast to
//     a pointer to a CUDA vector type, `(const float4*)(p + i)` or `(float4*)&A[i]`, becomes
//     `::emu::pointer_cast<const float4*>(p + i)`: a checked pointer may be cast, and the
//     profiler counts the 16-byte accesses made through the result (emu/memory.h).
//  6. `T* p = cluster.map_shared_rank(ptr, rank);` becomes `auto p = ...`: p keeps the
//     checked pointer into another block's shared memory (emu/include/cooperative_groups.h).
//
// Compile errors must point at the student's file, line and column: the output starts
// with `#line 1 "<input>"`, and after each rewrite the rest of the original line goes on
// a line of its own, behind a `#line` directive with the original line's number and
// indented to its original column.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Token {
    enum Kind { Identifier, Number, Literal, Punctuator } kind;
    std::size_t begin, end;  // byte offsets in the source
    std::string text;
};

// ---- Tokenizer --------------------------------------------------------------------------
// Skips comments and preprocessor directives (they are copied through untouched), keeps
// string and character literals whole, and knows CUDA's `<<<` and `>>>`.
class Tokenizer {
public:
    explicit Tokenizer(const std::string& source) : s_(source) {}

    std::vector<Token> run() {
        std::vector<Token> tokens;
        bool line_start = true;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '\n') {
                line_start = true;
                ++pos_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++pos_;
            } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
                pos_ += 2;
            } else if (starts("//")) {
                skip_line_comment();
            } else if (starts("/*")) {
                skip_block_comment();
            } else if (c == '#' && line_start) {
                skip_directive();
            } else {
                line_start = false;
                tokens.push_back(next());
            }
        }
        return tokens;
    }

private:
    bool starts(const char* text) const { return s_.compare(pos_, std::char_traits<char>::length(text), text) == 0; }

    void skip_line_comment() {
        while (pos_ < s_.size() && s_[pos_] != '\n') {
            pos_ += (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ? 2 : 1;
        }
    }
    void skip_block_comment() {
        const std::size_t close = s_.find("*/", pos_ + 2);
        pos_ = close == std::string::npos ? s_.size() : close + 2;
    }
    void skip_directive() {
        while (pos_ < s_.size() && s_[pos_] != '\n') {
            if (starts("/*")) {
                skip_block_comment();
            } else if (starts("//")) {
                skip_line_comment();
            } else {
                pos_ += (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ? 2 : 1;
            }
        }
    }

    static bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

    Token next() {
        const std::size_t begin = pos_;
        const char c = s_[pos_];
        if (identifier_char(c) && !std::isdigit(static_cast<unsigned char>(c))) {
            while (pos_ < s_.size() && identifier_char(s_[pos_])) ++pos_;
            const std::string word = s_.substr(begin, pos_ - begin);
            if (pos_ < s_.size() && s_[pos_] == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
                return raw_string(begin);
            }
            if (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'') &&
                (word == "u8" || word == "u" || word == "U" || word == "L")) {
                return quoted(begin, s_[pos_]);
            }
            return make(Token::Identifier, begin);
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
            ++pos_;
            while (pos_ < s_.size()) {
                const char d = s_[pos_];
                if ((d == '+' || d == '-') && std::string("eEpP").find(s_[pos_ - 1]) != std::string::npos) {
                    ++pos_;
                } else if (identifier_char(d) || d == '.' || d == '\'') {
                    ++pos_;
                } else {
                    break;
                }
            }
            return make(Token::Number, begin);
        }
        if (c == '"' || c == '\'') return quoted(begin, c);
        static const char* const punctuators[] = {"<<<", ">>>", "...", "<<=", ">>=", "->*", "::", "->", "<<", ">>", "<=",
                                                  ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=",
                                                  "%=", "&=", "|=", "^=", ".*"};
        for (const char* p : punctuators) {
            if (starts(p)) {
                pos_ += std::char_traits<char>::length(p);
                return make(Token::Punctuator, begin);
            }
        }
        ++pos_;
        return make(Token::Punctuator, begin);
    }

    Token quoted(std::size_t begin, char quote) {
        ++pos_;
        while (pos_ < s_.size() && s_[pos_] != quote && s_[pos_] != '\n') {
            pos_ += s_[pos_] == '\\' ? 2 : 1;
        }
        if (pos_ < s_.size() && s_[pos_] == quote) ++pos_;
        return make(Token::Literal, begin);
    }

    Token raw_string(std::size_t begin) {
        const std::size_t open = s_.find('(', pos_);
        const std::string delimiter = s_.substr(pos_ + 1, open - pos_ - 1);
        const std::size_t close = s_.find(")" + delimiter + "\"", open);
        pos_ = close == std::string::npos ? s_.size() : close + delimiter.size() + 2;
        return make(Token::Literal, begin);
    }

    Token make(Token::Kind kind, std::size_t begin) { return Token{kind, begin, pos_, s_.substr(begin, pos_ - begin)}; }

    const std::string& s_;
    std::size_t pos_ = 0;
};

// ---- Rewriting ---------------------------------------------------------------------------
struct Edit {
    std::size_t begin, end;  // replace source bytes [begin, end)
    std::string text;        // by this (no line breaks)
};

const std::set<std::string> kTypeKeywords = {"void",     "bool",   "char",     "short",    "int",       "long",
                                             "float",    "double", "signed",   "unsigned", "const",     "volatile",
                                             "auto",     "wchar_t", "char16_t", "char32_t", "__restrict__", "__restrict",
                                             "restrict", "struct", "class",    "union",    "enum",      "typename"};

class Translator {
public:
    Translator(const std::string& source, std::string path) : s_(source), path_(std::move(path)) {
        tokens_ = Tokenizer(s_).run();
    }

    std::string run() {
        scan();
        rewrite_located_accesses();
        return apply();
    }

private:
    // A name whose subscripts get their source location (rewrite 4), and the tokens
    // [begin, end) where it means the checked pointer or the __shared__ array.
    struct Scope {
        std::string name;
        std::size_t begin, end;
    };

    void scan() {
        std::vector<bool> namespace_braces;  // for each open brace: is it a namespace's?
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            const std::string& t = tokens_[i].text;
            if (t == "{") {
                namespace_braces.push_back(opens_namespace(i));
            } else if (t == "}") {
                if (!namespace_braces.empty()) namespace_braces.pop_back();
            } else if (t == "__global__") {
                rewrite_kernel(i);
            } else if (t == "__device__") {
                locate_helper_parameters(i);
            } else if (t == "__shared__") {
                const bool namespace_scope =
                    std::all_of(namespace_braces.begin(), namespace_braces.end(), [](bool b) { return b; });
                i = rewrite_shared(i, namespace_scope);
            } else if (t == "<<<") {
                rewrite_launch(i);
            } else if (t == "reinterpret_cast" && text(i + 1) == "<") {
                locate_cast_reference(i);
                replace(i, i + 1, "::emu::pointer_cast");
            } else if (t == "(") {
                rewrite_vector_cast(i);
            } else if (t == "map_shared_rank" && (text(i - 1) == "." || text(i - 1) == "->")) {
                rewrite_remote_pointer(i);
            }
        }
    }

    // `auto& stages = *reinterpret_cast<float (*)[3][64][20]>(bytes);`: shared memory seen as
    // an array (a checked shared_array, emu::pointer_cast). Its name's subscripts get their
    // lines (rewrite 4) from the end of the declaration to the end of its block, as a
    // `__shared__` array's do.
    void locate_cast_reference(std::size_t cast) {
        if (cast < 4 || text(cast - 1) != "*" || text(cast - 2) != "=" || text(cast - 4) != "&") return;
        if (tokens_[cast - 3].kind != Token::Identifier) return;
        std::size_t end = cast;
        int depth = 0;
        for (; end < tokens_.size(); ++end) {
            const std::string& t = text(end);
            if (t == "(" || t == "[" || t == "{") ++depth;
            if (t == ")" || t == "]" || t == "}") --depth;
            if (t == ";" && depth == 0) break;
        }
        if (end >= tokens_.size()) return;
        scopes_.push_back(Scope{text(cast - 3), end + 1, enclosing_block_end(end + 1)});
    }

    // The token that closes the block enclosing token @p from (tokens_.size() at file scope).
    std::size_t enclosing_block_end(std::size_t from) const {
        int depth = 0;
        for (std::size_t i = from; i < tokens_.size(); ++i) {
            const std::string& t = tokens_[i].text;
            if (t == "{") ++depth;
            if (t == "}" && depth-- == 0) return i;
        }
        return tokens_.size();
    }

    bool inside_edit(std::size_t token) const {
        for (const Edit& e : edits_) {
            if (tokens_[token].begin >= e.begin && tokens_[token].begin < e.end) return true;
        }
        return false;
    }

    // 4. A[i] -> ::emu::at(A, __FILE__, __LINE__, 1)[i] for the names in scopes_. Not after
    // `.`, `->` or `::` (another A), nor after a type or a name (a declaration that
    // shadows A in an inner block).
    void rewrite_located_accesses() {
        static const std::set<std::string> expression_keywords = {"return", "case", "sizeof", "throw", "else", "do"};
        for (std::size_t i = 1; i + 1 < tokens_.size(); ++i) {
            if (tokens_[i].kind != Token::Identifier || text(i + 1) != "[") continue;
            const Token& before = tokens_[i - 1];
            if (before.text == "." || before.text == "->" || before.text == "::") continue;
            if (before.kind == Token::Identifier && !expression_keywords.count(before.text)) continue;
            const bool located = std::any_of(scopes_.begin(), scopes_.end(), [&](const Scope& scope) {
                return scope.name == tokens_[i].text && i >= scope.begin && i < scope.end;
            });
            if (!located || inside_edit(i)) continue;
            // How many subscripts follow: a __shared__ array's element, or one of its rows.
            int subscripts = 0;
            for (std::size_t j = i + 1; j < tokens_.size() && text(j) == "[" && match(j) != std::string::npos; j = match(j) + 1) {
                ++subscripts;
            }
            replace(i, i + 1, "::emu::at(" + tokens_[i].text + ", __FILE__, __LINE__, " + std::to_string(subscripts) + ")");
        }
    }

    const std::string& text(std::size_t i) const {
        static const std::string none;
        return i < tokens_.size() ? tokens_[i].text : none;
    }

    // Index of the bracket that closes the one at @p open ("(", "[" or "{"), or npos.
    std::size_t match(std::size_t open) const {
        int depth = 0;
        for (std::size_t i = open; i < tokens_.size(); ++i) {
            const std::string& t = tokens_[i].text;
            if (t == "(" || t == "[" || t == "{") ++depth;
            if (t == ")" || t == "]" || t == "}") {
                if (--depth == 0) return i;
            }
        }
        return std::string::npos;
    }

    bool opens_namespace(std::size_t brace) const {
        std::size_t i = brace;
        if (i > 0 && tokens_[i - 1].kind == Token::Identifier && text(i - 2) == "namespace") return true;
        if (i > 0 && text(i - 1) == "namespace") return true;
        if (i > 1 && tokens_[i - 1].kind == Token::Literal && text(i - 2) == "extern") return true;  // extern "C" {
        return false;
    }

    // The source text of tokens [first, last), with runs of white space made one space.
    std::string source_text(std::size_t first, std::size_t last) const {
        std::string out;
        for (std::size_t i = first; i < last; ++i) {
            if (i > first && tokens_[i].begin > tokens_[i - 1].end) out += ' ';
            out += tokens_[i].text;
        }
        return out;
    }

    static std::string quote(const std::string& text) {
        std::string out = "\"";
        for (char c : text) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        return out + "\"";
    }

    void replace(std::size_t first, std::size_t last, std::string with) {
        edits_.push_back(Edit{tokens_[first].begin, tokens_[last - 1].end, std::move(with)});
    }
    void insert_before(std::size_t token, std::string with) {
        edits_.push_back(Edit{tokens_[token].begin, tokens_[token].begin, std::move(with)});
    }
    void insert_after(std::size_t token, std::string with) {
        edits_.push_back(Edit{tokens_[token].end, tokens_[token].end, std::move(with)});
    }

    // 1. kernel<T><<<grid, block, bytes, stream>>>(args)
    void rewrite_launch(std::size_t chevrons) {
        // The kernel expression ends just before `<<<`: a name, maybe qualified, maybe
        // with template arguments.
        if (chevrons == 0) return;
        std::size_t first = chevrons - 1;
        if (text(first) == ">" || text(first) == ">>") {
            int depth = 0;
            for (std::size_t i = first + 1; i-- > 0;) {
                const std::string& t = text(i);
                if (t == ">") depth += 1;
                else if (t == ">>") depth += 2;
                else if (t == "<") depth -= 1;
                else if (t == ")" || t == "]") i = match_back(i);
                if (depth == 0) {
                    first = i == 0 ? 0 : i - 1;
                    break;
                }
            }
        }
        if (tokens_[first].kind != Token::Identifier) return;
        while (first >= 1 && text(first - 1) == "::") {
            first -= (first >= 2 && tokens_[first - 2].kind == Token::Identifier) ? 2 : 1;
        }
        int depth = 0;
        std::size_t close = std::string::npos;
        for (std::size_t i = chevrons + 1; i < tokens_.size(); ++i) {
            const std::string& t = text(i);
            if (t == "(" || t == "[" || t == "{") ++depth;
            if (t == ")" || t == "]" || t == "}") --depth;
            if (depth == 0 && t == ">>>") {
                close = i;
                break;
            }
            if (depth < 0 || t == ";") return;
        }
        if (close == std::string::npos || text(close + 1) != "(") return;
        insert_before(first, "::emu::launch(");
        replace(chevrons, chevrons + 1, ", " + quote(source_text(first, chevrons)) + ", __FILE__, __LINE__)(");
        replace(close, close + 1, ")");
    }

    std::size_t match_back(std::size_t close) const {
        int depth = 0;
        for (std::size_t i = close + 1; i-- > 0;) {
            const std::string& t = text(i);
            if (t == ")" || t == "]" || t == "}") ++depth;
            if (t == "(" || t == "[" || t == "{") {
                if (--depth == 0) return i;
            }
        }
        return 0;
    }

    // 3. __global__ void name(params) { body }
    void rewrite_kernel(std::size_t keyword) {
        std::size_t open = std::string::npos;
        std::string cluster_dims;  // the arguments of __cluster_dims__(x, y, z), if any
        for (std::size_t i = keyword + 1; i + 1 < tokens_.size(); ++i) {
            const std::string& t = text(i);
            if (t == ";" || t == "{" || t == "}") return;
            if (tokens_[i].kind == Token::Identifier && text(i + 1) == "(") {
                if (t == "__cluster_dims__") {
                    const std::size_t close_dims = match(i + 1);
                    if (close_dims == std::string::npos) return;
                    cluster_dims = source_text(i + 2, close_dims);
                    i = close_dims;
                    continue;
                }
                if (t == "__launch_bounds__" || t == "__attribute__" || t == "alignas" || t == "__align__" ||
                    t == "decltype" || t == "__declspec") {
                    i = match(i + 1);
                    if (i == std::string::npos) return;
                    continue;
                }
                open = i + 1;
                break;
            }
        }
        if (open == std::string::npos) return;
        const std::size_t close = match(open);
        if (close == std::string::npos) return;
        std::size_t body = close + 1;
        while (body < tokens_.size() && text(body) != "{" && text(body) != ";") ++body;
        if (text(body) != "{") return;  // a declaration: nothing to do
        const std::size_t body_end = match(body);
        if (body_end == std::string::npos) return;

        std::vector<std::string> pointers;
        std::size_t start = open + 1;
        int depth = 0;
        for (std::size_t i = open + 1; i <= close; ++i) {
            const std::string& t = text(i);
            if (t == "(" || t == "[" || t == "{" || t == "<") ++depth;
            if (t == ")" || t == "]" || t == "}" || t == ">") --depth;
            if (t == ">>") depth -= 2;
            if ((t == "," && depth == 0) || i == close) {
                const std::string name = pointer_parameter(start, i);
                if (!name.empty()) pointers.push_back(name);
                start = i + 1;
            }
        }
        // The kernel's signature names its template arguments in messages.
        // A kernel declared with __cluster_dims__ tells the launch its cluster shape there.
        std::string prologue = cluster_dims.empty()
                                   ? " ::emu::detail::kernel_entered(__PRETTY_FUNCTION__);"
                                   : " ::emu::detail::kernel_entered(__PRETTY_FUNCTION__, dim3(" + cluster_dims + "));";
        for (const std::string& name : pointers) {
            prologue += " auto emu_checked_" + name + " = ::emu::checked_parameter(" + name + ", \"" + name + "\");";
        }
        for (const std::string& name : pointers) scopes_.push_back(Scope{name, body + 1, body_end});
        if (!pointers.empty()) {
            prologue += " {";
            for (const std::string& name : pointers) prologue += " auto " + name + " = emu_checked_" + name + "; (void)" + name + ";";
            insert_before(body_end, "}");
        }
        insert_after(body, prologue);
    }

    // 4, for a helper: __device__ ... name(params) { body }: each named parameter's
    // subscripts in the body get their line: a __shared__ tile the helper was given by
    // reference, and a kernel's checked pointer given by value (a template's `Matrix C`).
    void locate_helper_parameters(std::size_t keyword) {
        std::size_t open = std::string::npos;
        for (std::size_t i = keyword + 1; i + 1 < tokens_.size(); ++i) {
            const std::string& t = text(i);
            if (t == ";" || t == "{" || t == "}" || t == "=") return;  // a variable, not a function
            if (tokens_[i].kind == Token::Identifier && text(i + 1) == "(") {
                if (t == "__launch_bounds__" || t == "__attribute__" || t == "alignas" || t == "__align__" ||
                    t == "decltype" || t == "__declspec") {
                    i = match(i + 1);
                    if (i == std::string::npos) return;
                    continue;
                }
                open = i + 1;
                break;
            }
        }
        if (open == std::string::npos) return;
        const std::size_t close = match(open);
        if (close == std::string::npos) return;
        std::size_t body = close + 1;
        while (body < tokens_.size() && text(body) != "{" && text(body) != ";") ++body;
        if (text(body) != "{") return;  // a declaration
        const std::size_t body_end = match(body);
        if (body_end == std::string::npos) return;
        std::size_t start = open + 1;
        int depth = 0;
        for (std::size_t i = open + 1; i <= close; ++i) {
            const std::string& t = text(i);
            if (t == "(" || t == "[" || t == "{" || t == "<") ++depth;
            if (t == ")" || t == "]" || t == "}" || t == ">") --depth;
            if (t == ">>") depth -= 2;
            if ((t == "," && depth == 0) || i == close) {
                std::size_t last = i;
                for (std::size_t j = start; j < i; ++j) {
                    if (text(j) == "=") {
                        last = j;  // drop a default argument
                        break;
                    }
                }
                // A named parameter: its name last, after its type (a reference's `&`, a
                // pointer's `*` or a type's name). emu::at() leaves what is not checked as it is.
                if (last > start + 1 && tokens_[last - 1].kind == Token::Identifier) {
                    scopes_.push_back(Scope{text(last - 1), body + 1, body_end});
                }
                start = i + 1;
            }
        }
    }

    // 6. `T* p = cluster.map_shared_rank(ptr, rank);` -> `auto p = ...`, so that p keeps
    // the checked pointer map_shared_rank() returns (emu::remote_ptr). Only a declaration
    // of one pointer whose whole initializer is the call; anything else is left as it is.
    void rewrite_remote_pointer(std::size_t call) {
        const std::size_t open = call + 1;
        if (text(open) != "(") return;
        const std::size_t close = match(open);
        if (close == std::string::npos || text(close + 1) != ";") return;
        // Back over the object expression (`cluster`, `cg::this_cluster()`) to the `=`.
        std::size_t i = call - 1;
        while (i > 0) {
            const std::string& t = text(i - 1);
            if (t == ")") {
                i = match_back(i - 1);
            } else if (tokens_[i - 1].kind == Token::Identifier || t == "::" || t == "." || t == "->") {
                --i;
            } else {
                break;
            }
        }
        if (i < 3 || text(i - 1) != "=") return;
        const std::size_t equals = i - 1, name = equals - 1, star = equals - 2;
        if (tokens_[name].kind != Token::Identifier || text(star) != "*") return;
        std::size_t first = star;
        while (first > 0 && (tokens_[first - 1].kind == Token::Identifier || text(first - 1) == "::" ||
                             text(first - 1) == "<" || text(first - 1) == ">")) {
            --first;
        }
        if (first == star || inside_edit(first)) return;
        replace(first, star + 1, "auto");
    }

    // 5. (const float4*)operand -> ::emu::pointer_cast<const float4*>(operand), where the
    // operand is a parenthesized expression, or a name (after & or *) followed by
    // subscripts, calls and member accesses. Anything else is left as it is.
    void rewrite_vector_cast(std::size_t open) {
        static const std::set<std::string> qualifiers = {"const", "volatile"};
        static const std::set<std::string> not_operands = {"const", "volatile", "override", "final", "noexcept", "throw",
                                                           "return", "sizeof", "new", "delete"};
        std::size_t i = open + 1, vector_types = 0;
        for (; i < tokens_.size() && text(i) != "*"; ++i) {
            if (is_vector_type(text(i))) ++vector_types;
            else if (!qualifiers.count(text(i))) return;
        }
        if (vector_types != 1 || text(i) != "*") return;
        std::size_t close = i + 1;
        while (qualifiers.count(text(close))) ++close;
        if (text(close) != ")" || inside_edit(open)) return;
        std::size_t k = close + 1, last = std::string::npos;
        if (text(k) == "(") {
            last = match(k);
        } else {
            while (text(k) == "&" || text(k) == "*") ++k;
            if (k >= tokens_.size() || tokens_[k].kind != Token::Identifier || not_operands.count(text(k))) return;
            ++k;
            while (text(k) == "::" && k + 1 < tokens_.size() && tokens_[k + 1].kind == Token::Identifier) k += 2;
            while (k < tokens_.size()) {
                if ((text(k) == "[" || text(k) == "(") && match(k) != std::string::npos) {
                    k = match(k) + 1;
                } else if ((text(k) == "." || text(k) == "->") && k + 1 < tokens_.size() && tokens_[k + 1].kind == Token::Identifier) {
                    k += 2;
                } else {
                    break;
                }
            }
            last = k - 1;
        }
        if (last == std::string::npos) return;
        replace(open, close + 1, "::emu::pointer_cast<" + source_text(open + 1, close) + ">(");
        insert_after(last, ")");
    }

    static bool is_vector_type(const std::string& name) {
        static const std::set<std::string> bases = {"char",  "uchar", "short",    "ushort",    "int",   "uint",  "long",
                                                    "ulong", "float", "longlong", "ulonglong", "double"};
        return name.size() > 1 && name.back() >= '1' && name.back() <= '4' && bases.count(name.substr(0, name.size() - 1));
    }

    // The name of the parameter in tokens [first, last) if it is a named pointer, else "".
    std::string pointer_parameter(std::size_t first, std::size_t last) const {
        for (std::size_t i = first; i < last; ++i) {
            const std::string& t = text(i);
            if (t == "=") {
                last = i;  // drop a default argument
                break;
            }
            if (t == "(" || t == "[" || t == "&" || t == "&&" || t == "...") return "";
        }
        if (last <= first + 1 || tokens_[last - 1].kind != Token::Identifier) return "";
        const std::string& name = text(last - 1);
        if (kTypeKeywords.count(name) || text(last - 2) == "::") return "";
        std::size_t star = last - 1;
        while (star > first && (text(star - 1) == "const" || text(star - 1) == "volatile" ||
                                text(star - 1) == "__restrict__" || text(star - 1) == "__restrict")) {
            --star;
        }
        return star > first && text(star - 1) == "*" ? name : "";
    }

    // 2. [extern] __shared__ type declarator[, declarator...];  Returns the index to go on from.
    std::size_t rewrite_shared(std::size_t keyword, bool namespace_scope) {
        std::size_t first = keyword;
        while (first > 0 && text(first - 1) != ";" && text(first - 1) != "{" && text(first - 1) != "}" &&
               text(first - 1) != ":" && text(first - 1) != ")") {
            --first;
        }
        std::size_t end = keyword;
        int depth = 0;
        while (end < tokens_.size()) {
            const std::string& t = text(end);
            if (t == "(" || t == "[" || t == "{") ++depth;
            if (t == ")" || t == "]" || t == "}") --depth;
            if (depth < 0) return keyword;
            if (depth == 0 && t == ";") break;
            ++end;
        }
        if (end == tokens_.size()) return keyword;

        // The declaration without its storage words: what is left is `type declarators`.
        bool is_extern = false;
        std::string alignment;  // of `alignas(n)` or `__align__(n)`: the variable's address keeps it
        std::vector<std::size_t> rest;
        for (std::size_t i = first; i < end; ++i) {
            const std::string& t = text(i);
            if (t == "extern") {
                is_extern = true;
            } else if (t == "__align__" || t == "alignas" || t == "__attribute__") {
                const std::size_t close = match(i + 1);
                if (close == std::string::npos) return keyword;
                if (t != "__attribute__") alignment = source_text(i + 2, close);
                i = close;
            } else if (t != "__shared__" && t != "static" && t != "__device__") {
                rest.push_back(i);
            }
        }
        // The first declarator's name: an identifier at depth 0 followed by `[`, `,`, `=` or
        // the end, that is not a keyword and not qualified.
        std::size_t name_at = std::string::npos;
        depth = 0;
        for (std::size_t k = 0; k < rest.size(); ++k) {
            const std::string& t = text(rest[k]);
            if (t == "<") ++depth;
            if (t == ">") --depth;
            if (t == ">>") depth -= 2;
            const std::string after = k + 1 < rest.size() ? text(rest[k + 1]) : ";";
            if (depth == 0 && tokens_[rest[k]].kind == Token::Identifier && !kTypeKeywords.count(t) &&
                (after == "[" || after == "," || after == "=" || after == ";") && (k == 0 || text(rest[k - 1]) != "::")) {
                name_at = k;
                break;
            }
        }
        if (name_at == std::string::npos || name_at == 0) return keyword;
        std::size_t type_end = name_at;
        while (type_end > 0 && (text(rest[type_end - 1]) == "*" || text(rest[type_end - 1]) == "&")) --type_end;
        std::string type;
        for (std::size_t k = 0; k < type_end; ++k) type += (k ? " " : "") + text(rest[k]);

        std::string out;
        std::size_t k = type_end;
        while (k < rest.size()) {
            std::string pointer_ops;
            while (k < rest.size() && (text(rest[k]) == "*" || text(rest[k]) == "&" || text(rest[k]) == "const")) {
                pointer_ops += " " + text(rest[k++]);
            }
            if (k >= rest.size() || tokens_[rest[k]].kind != Token::Identifier) return keyword;
            const std::string name = text(rest[k++]);
            std::vector<std::string> extents;
            while (k < rest.size() && text(rest[k]) == "[") {
                const std::size_t close = match(rest[k]);
                extents.push_back(source_text(rest[k] + 1, close));
                while (k < rest.size() && rest[k] <= close) ++k;
            }
            bool initialised = false;
            while (k < rest.size() && text(rest[k]) != ",") {
                initialised = initialised || text(rest[k]) == "=";
                ++k;
            }
            ++k;  // the comma
            out += declare_shared(type + pointer_ops, name, extents, is_extern, namespace_scope, initialised, alignment);
            scopes_.push_back(Scope{name, end + 1, enclosing_block_end(end + 1)});
        }
        replace(first, end + 1, out);
        return end;
    }

    static std::string declare_shared(const std::string& type, const std::string& name,
                                      const std::vector<std::string>& extents, bool is_extern, bool namespace_scope,
                                      bool initialised, const std::string& alignment) {
        if (initialised) {
            return "static_assert(sizeof(char) == 0, \"__shared__ variable " + name +
                   ": a __shared__ variable cannot have an initializer; assign it in the kernel\");";
        }
        if (is_extern) {
            if (extents.size() != 1 || !extents[0].empty()) {
                return "static_assert(sizeof(char) == 0, \"extern __shared__ " + name +
                       ": dynamic shared memory is declared as an array of unknown size, e.g. extern __shared__ float " +
                       name + "[];\");";
            }
            if (namespace_scope) return "static ::emu::dynamic_shared_global<" + type + "> " + name + "(\"" + name + "\");";
            return "::emu::dynamic_shared_array<" + type + "> " + name + "(\"" + name + "\");";
        }
        if (namespace_scope) {
            return "static_assert(sizeof(char) == 0, \"__shared__ " + name +
                   ": the CPU backend supports __shared__ variables only inside kernels and __device__ functions\");";
        }
        std::string full = type;
        if (!extents.empty()) {
            full = "::emu::shared_array<" + type;
            for (const std::string& extent : extents) {
                if (extent.empty()) {
                    return "static_assert(sizeof(char) == 0, \"__shared__ " + name +
                           ": only extern __shared__ arrays may leave their size out\");";
                }
                full += ", (" + extent + ")";
            }
            full += ">";
        }
        return "auto& " + name + " = ::emu::shared_variable<" + full + ">([] {}, \"" + name + "\", __FILE__, __LINE__" +
               // alignas takes a type or a constant: a struct with it says which, either way.
               (alignment.empty() ? std::string()
                                  : ", [] { struct alignas(" + alignment + ") Aligned {}; return alignof(Aligned); }()") +
               ");";
    }

    std::string apply() {
        std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
        std::string out = "#include <cuda_runtime.h>\n#line 1 " + quote(path_) + "\n";
        std::size_t at = 0;
        for (const Edit& edit : edits_) {
            if (edit.begin < at) continue;  // overlapping rewrites cannot happen; be safe
            out.append(s_, at, edit.begin - at);
            out += edit.text;
            at = edit.end;
            // The rest of the line where it was: same line number, same column. The
            // indentation keeps tabs, and counts a UTF-8 character as one column, as g++ does.
            const std::size_t line_start = s_.rfind('\n', at == 0 ? 0 : at - 1);
            const std::size_t first = line_start == std::string::npos ? 0 : line_start + 1;
            out += "\n#line " + std::to_string(1 + std::count(s_.begin(), s_.begin() + at, '\n')) + "\n";
            for (std::size_t c = first; c < at; ++c) {
                const unsigned char byte = static_cast<unsigned char>(s_[c]);
                if (byte == '\t') {
                    out += '\t';
                } else if ((byte & 0xC0) != 0x80) {
                    out += ' ';
                }
            }
        }
        out.append(s_, at, std::string::npos);
        return out;
    }

    const std::string& s_;
    std::string path_;
    std::vector<Token> tokens_;
    std::vector<Edit> edits_;
    std::vector<Scope> scopes_;
};

}  // namespace

int main(int argc, char* argv[]) {
    if (argc != 3) {
        std::cerr << "usage: cu2cpp input.cu output.cpp\n";
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::cerr << "cu2cpp: cannot read " << argv[1] << "\n";
        return 1;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string source = buffer.str();
    const std::string translated = Translator(source, argv[1]).run();
    std::ofstream out(argv[2], std::ios::binary);
    out << translated;
    if (!out) {
        std::cerr << "cu2cpp: cannot write " << argv[2] << "\n";
        return 1;
    }
    return 0;
}
