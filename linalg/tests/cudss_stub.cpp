// Stand-in for NVIDIA's libcudss, compiled by g++ at test time (tests/cudss_stub.rs) so the
// cuDSS layer of simdnlp-linalg can be checked without a GPU.
//
// It exports every cuDSS function the layer calls, with the C prototypes of cuDSS 0.7.1
// (cudssMatrixCreateCsr: 13 arguments) or 0.8.0/1.0 (14: offsetType before indexType),
// chosen at run time by the version it answers to cudssGetProperty. Each call:
//   - is appended to a log file as one line `name key=value ... status=S`, every argument in
//     declaration order (pointers and handles as decimal integers, doubles as %.17g);
//   - validates what a wrong argument order or arity would break (object kinds, enum
//     ranges, sizes of get/set values) and answers CUDSS_STATUS_INVALID_VALUE (3) if not;
//   - never dereferences a device pointer.
// Handles are fake addresses `kind << 28 | serial` (kind: 1 handle, 2 config, 3 data,
// 4 matrix), so a swapped argument is caught by its kind.
//
// Control functions (called by the test through the same dlopen handle):
//   stub_configure(log_path, major, minor, patch), stub_set_info, stub_set_inertia,
//   stub_set_npivots, stub_fail(name, status, skip): the (skip+1)-th call of `name` returns
//   `status` (once), stub_live_objects(): objects created and not destroyed.
// Without stub_configure, the version comes from SIMDNLP_CUDSS_STUB_VERSION ("0.7.1" if
// unset) and the log path from SIMDNLP_CUDSS_STUB_LOG (no log if unset).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

enum Kind : uint64_t { KIND_HANDLE = 1, KIND_CONFIG = 2, KIND_DATA = 3, KIND_MATRIX = 4 };

struct State {
    bool configured = false;
    std::string log_path;
    int version[3] = {0, 7, 1};
    int info = 0;
    int inertia[2] = {0, 0};
    int npivots = 0;
    std::string fail_name;
    int fail_status = 0;
    int fail_skip = 0;
    uint64_t serial = 0;
    long live = 0;
};

State g;
std::recursive_mutex g_lock;

void from_env() {
    if (g.configured) return;
    g.configured = true;
    if (const char* v = std::getenv("SIMDNLP_CUDSS_STUB_VERSION")) {
        std::sscanf(v, "%d.%d.%d", &g.version[0], &g.version[1], &g.version[2]);
    }
    if (const char* p = std::getenv("SIMDNLP_CUDSS_STUB_LOG")) g.log_path = p;
}

bool newer_abi() { return !(g.version[0] == 0 && g.version[1] == 7); }

void log_line(const std::string& line) {
    if (g.log_path.empty()) return;
    if (FILE* f = std::fopen(g.log_path.c_str(), "a")) {
        std::fprintf(f, "%s\n", line.c_str());
        std::fclose(f);
    }
}

std::string num(unsigned long long v) { return std::to_string(v); }
std::string ptr(const void* p) { return num(static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p))); }
std::string dbl(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Injected failure for this call, or 0.
int injected(const char* name) {
    if (g.fail_name != name) return 0;
    if (g.fail_skip > 0) {
        --g.fail_skip;
        return 0;
    }
    g.fail_name.clear();
    return g.fail_status;
}

int finish(const char* name, std::string args, int status) {
    log_line(std::string(name) + args + " status=" + std::to_string(status));
    return status;
}

void* make(Kind kind) {
    ++g.live;
    return reinterpret_cast<void*>(static_cast<uintptr_t>((uint64_t(kind) << 28) | ++g.serial));
}
bool is(const void* p, Kind kind) {
    return p != nullptr && (reinterpret_cast<uintptr_t>(p) >> 28) == kind;
}
bool value_type_ok(int t) { return t == 0 || t == 1 || t == 4 || t == 5; }   // R_32F R_64F C_32F C_64F
bool index_type_ok(int t) { return t == 10 || t == 24; }                      // R_32I R_64I
bool phase_ok(int p) { return p > 0 && p <= 1023; }

const int INVALID = 3;

}  // namespace

extern "C" {

void stub_configure(const char* log_path, int major, int minor, int patch) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    g.configured = true;
    g.log_path = log_path ? log_path : "";
    g.version[0] = major;
    g.version[1] = minor;
    g.version[2] = patch;
}
void stub_set_info(int info) { std::lock_guard<std::recursive_mutex> guard(g_lock); g.info = info; }
void stub_set_inertia(int positive, int negative) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    g.inertia[0] = positive;
    g.inertia[1] = negative;
}
void stub_set_npivots(int n) { std::lock_guard<std::recursive_mutex> guard(g_lock); g.npivots = n; }
void stub_fail(const char* name, int status, int skip) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    g.fail_name = name;
    g.fail_status = status;
    g.fail_skip = skip;
}
long stub_live_objects() { std::lock_guard<std::recursive_mutex> guard(g_lock); return g.live; }

int cudssGetProperty(int type, int* value) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    from_env();
    const char* name = "cudssGetProperty";
    std::string args = " type=" + std::to_string(type);
    if (value == nullptr || type < 0 || type > 2) return finish(name, args, INVALID);
    if (int s = injected(name)) return finish(name, args, s);
    *value = g.version[type];
    return finish(name, args + " value=" + std::to_string(*value), 0);
}

int cudssCreate(void** handle) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    from_env();
    const char* name = "cudssCreate";
    if (handle == nullptr) return finish(name, "", INVALID);
    if (int s = injected(name)) return finish(name, "", s);
    *handle = make(KIND_HANDLE);
    return finish(name, " out=" + ptr(*handle), 0);
}

int cudssDestroy(void* handle) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssDestroy";
    std::string args = " handle=" + ptr(handle);
    if (!is(handle, KIND_HANDLE)) return finish(name, args, INVALID);
    --g.live;
    return finish(name, args, injected(name));
}

int cudssSetStream(void* handle, void* stream) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssSetStream";
    std::string args = " handle=" + ptr(handle) + " stream=" + ptr(stream);
    if (!is(handle, KIND_HANDLE)) return finish(name, args, INVALID);
    return finish(name, args, injected(name));
}

int cudssSetThreadingLayer(void* handle, const char* layer) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssSetThreadingLayer";
    std::string args = " handle=" + ptr(handle) + " layer=" + (layer ? layer : "(null)");
    if (!is(handle, KIND_HANDLE)) return finish(name, args, INVALID);
    return finish(name, args, injected(name));
}

int cudssConfigCreate(void** config) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssConfigCreate";
    if (config == nullptr) return finish(name, "", INVALID);
    if (int s = injected(name)) return finish(name, "", s);
    *config = make(KIND_CONFIG);
    return finish(name, " out=" + ptr(*config), 0);
}

int cudssConfigDestroy(void* config) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssConfigDestroy";
    std::string args = " config=" + ptr(config);
    if (!is(config, KIND_CONFIG)) return finish(name, args, INVALID);
    --g.live;
    return finish(name, args, injected(name));
}

int cudssConfigSet(void* config, int param, void* value, size_t size) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssConfigSet";
    std::string args = " config=" + ptr(config) + " param=" + std::to_string(param) +
                       " size=" + num(size);
    if (!is(config, KIND_CONFIG) || value == nullptr || param < 0 || param > 30)
        return finish(name, args, INVALID);
    if (size == sizeof(int)) {
        int v;
        std::memcpy(&v, value, sizeof v);
        args += " value=" + std::to_string(v);
    } else if (size == sizeof(double)) {
        double v;
        std::memcpy(&v, value, sizeof v);
        args += " value=" + dbl(v);
    } else {
        return finish(name, args, INVALID);
    }
    return finish(name, args, injected(name));
}

int cudssDataCreate(void* handle, void** data) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssDataCreate";
    std::string args = " handle=" + ptr(handle);
    if (!is(handle, KIND_HANDLE) || data == nullptr) return finish(name, args, INVALID);
    if (int s = injected(name)) return finish(name, args, s);
    *data = make(KIND_DATA);
    return finish(name, args + " out=" + ptr(*data), 0);
}

int cudssDataDestroy(void* handle, void* data) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssDataDestroy";
    std::string args = " handle=" + ptr(handle) + " data=" + ptr(data);
    if (!is(handle, KIND_HANDLE) || !is(data, KIND_DATA)) return finish(name, args, INVALID);
    --g.live;
    return finish(name, args, injected(name));
}

// Data parameters used by simdnlp: INFO 0 (int), NPIVOTS 2 (index type), INERTIA 3 (two
// values of the index type); the same numbers in 0.7, 0.8 and 1.0.
int cudssDataGet(void* handle, void* data, int param, void* value, size_t size, size_t* written) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssDataGet";
    std::string args = " handle=" + ptr(handle) + " data=" + ptr(data) +
                       " param=" + std::to_string(param) + " size=" + num(size);
    if (!is(handle, KIND_HANDLE) || !is(data, KIND_DATA) || value == nullptr)
        return finish(name, args, INVALID);
    if (int s = injected(name)) return finish(name, args, s);
    size_t n = 0;
    if (param == 0 && size == sizeof(int)) {
        std::memcpy(value, &g.info, sizeof(int));
        n = sizeof(int);
        args += " value=" + std::to_string(g.info);
    } else if (param == 2 && size == sizeof(int)) {
        std::memcpy(value, &g.npivots, sizeof(int));
        n = sizeof(int);
        args += " value=" + std::to_string(g.npivots);
    } else if (param == 3 && size == 2 * sizeof(int)) {
        std::memcpy(value, g.inertia, 2 * sizeof(int));
        n = 2 * sizeof(int);
        args += " value=" + std::to_string(g.inertia[0]) + "," + std::to_string(g.inertia[1]);
    } else {
        return finish(name, args, INVALID);
    }
    if (written) *written = n;
    return finish(name, args, 0);
}

int cudssDataSet(void* handle, void* data, int param, void* value, size_t size) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssDataSet";
    std::string args = " handle=" + ptr(handle) + " data=" + ptr(data) +
                       " param=" + std::to_string(param) + " size=" + num(size);
    if (!is(handle, KIND_HANDLE) || !is(data, KIND_DATA) || value == nullptr)
        return finish(name, args, INVALID);
    if (param == 0 && size == sizeof(int)) {  // INFO
        int v;
        std::memcpy(&v, value, sizeof v);
        args += " value=" + std::to_string(v);
    } else if (param == 9 && size > 0 && size % sizeof(int) == 0) {  // USER_PERM: n ints
        std::string list;
        for (size_t k = 0; k < size / sizeof(int); ++k) {
            int v;
            std::memcpy(&v, static_cast<const char*>(value) + k * sizeof v, sizeof v);
            list += (k ? "," : "") + std::to_string(v);
        }
        args += " value=" + list;
    } else {
        return finish(name, args, INVALID);
    }
    return finish(name, args, injected(name));
}

// One definition for both arities: with the 0.7 ABI the 14th argument is never read.
int cudssMatrixCreateCsr(void** matrix, int64_t nrows, int64_t ncols, int64_t nnz,
                         void* row_start, void* row_end, void* col_indices, void* values,
                         int a9, int a10, int a11, int a12, int a13, int a14) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssMatrixCreateCsr";
    std::string args = " nrows=" + std::to_string(nrows) + " ncols=" + std::to_string(ncols) +
                       " nnz=" + std::to_string(nnz) + " rowStart=" + ptr(row_start) +
                       " rowEnd=" + ptr(row_end) + " colIndices=" + ptr(col_indices) +
                       " values=" + ptr(values);
    int index_type, value_type, mtype, mview, base;
    bool ok = true;
    if (newer_abi()) {
        args += " offsetType=" + std::to_string(a9);
        ok = index_type_ok(a9);
        index_type = a10; value_type = a11; mtype = a12; mview = a13; base = a14;
    } else {
        index_type = a9; value_type = a10; mtype = a11; mview = a12; base = a13;
    }
    args += " indexType=" + std::to_string(index_type) + " valueType=" +
            std::to_string(value_type) + " mtype=" + std::to_string(mtype) +
            " mview=" + std::to_string(mview) + " indexBase=" + std::to_string(base);
    ok = ok && matrix != nullptr && nrows >= 0 && ncols >= 0 && nnz >= 0 &&
         index_type_ok(index_type) && value_type_ok(value_type) && mtype >= 0 && mtype <= 4 &&
         mview >= 0 && mview <= 2 && (base == 0 || base == 1);
    if (!ok) return finish(name, args, INVALID);
    if (int s = injected(name)) return finish(name, args, s);
    *matrix = make(KIND_MATRIX);
    return finish(name, " out=" + ptr(*matrix) + args, 0);
}

int cudssMatrixCreateDn(void** matrix, int64_t nrows, int64_t ncols, int64_t ld, void* values,
                        int value_type, int layout) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssMatrixCreateDn";
    std::string args = " nrows=" + std::to_string(nrows) + " ncols=" + std::to_string(ncols) +
                       " ld=" + std::to_string(ld) + " values=" + ptr(values) +
                       " valueType=" + std::to_string(value_type) +
                       " layout=" + std::to_string(layout);
    if (matrix == nullptr || !value_type_ok(value_type) || layout < 0 || layout > 1 || nrows < 0 ||
        ncols < 0 || ld < nrows)
        return finish(name, args, INVALID);
    if (int s = injected(name)) return finish(name, args, s);
    *matrix = make(KIND_MATRIX);
    return finish(name, " out=" + ptr(*matrix) + args, 0);
}

int cudssMatrixSetValues(void* matrix, void* values) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssMatrixSetValues";
    std::string args = " matrix=" + ptr(matrix) + " values=" + ptr(values);
    if (!is(matrix, KIND_MATRIX)) return finish(name, args, INVALID);
    return finish(name, args, injected(name));
}

int cudssMatrixDestroy(void* matrix) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssMatrixDestroy";
    std::string args = " matrix=" + ptr(matrix);
    if (!is(matrix, KIND_MATRIX)) return finish(name, args, INVALID);
    --g.live;
    return finish(name, args, injected(name));
}

int cudssExecute(void* handle, int phase, void* config, void* data, void* a, void* x, void* b) {
    std::lock_guard<std::recursive_mutex> guard(g_lock);
    const char* name = "cudssExecute";
    std::string args = " handle=" + ptr(handle) + " phase=" + std::to_string(phase) +
                       " config=" + ptr(config) + " data=" + ptr(data) + " A=" + ptr(a) +
                       " x=" + ptr(x) + " b=" + ptr(b);
    if (!is(handle, KIND_HANDLE) || !phase_ok(phase) || !is(config, KIND_CONFIG) ||
        !is(data, KIND_DATA) || !is(a, KIND_MATRIX) || !is(x, KIND_MATRIX) || !is(b, KIND_MATRIX))
        return finish(name, args, INVALID);
    return finish(name, args, injected(name));
}

}  // extern "C"
