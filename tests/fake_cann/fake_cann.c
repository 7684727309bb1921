/*
 * A stand-in for the CANN libraries the aclnn backend loads, for testing the backend's marshalling
 * on machines without an Ascend device.
 *
 * It exports the same C symbols with the same signatures (ACL runtime, aclCreateTensor and the two
 * operators' two-phase functions), keeps "device" memory in host memory, and records every call it
 * receives as one JSON event. fake_call_log() returns the events as a JSON array.
 *
 * The source is built in parts so that the symbols can be spread over several libraries, as a real
 * toolkit spreads them (libascendcl, libnnopbase, libopapi, libopapi_math):
 *   -DFAKE_RUNTIME  ACL runtime, device memory, the call log and the query API
 *   -DFAKE_TENSOR   aclCreateTensor / aclDestroyTensor
 *   -DFAKE_AAWQ     aclnnApplyAdamWQuant{GetWorkspaceSize,}, aclnnApplyAdamWV2{GetWorkspaceSize,}
 *   -DFAKE_WQP      aclnnWeightQuantPreprocess, aclnnAdd, aclnnPowTensorScalar, aclnnLtScalar (the
 *                   ops-math library's APIs), each {GetWorkspaceSize,}
 *   -DFAKE_QMM      aclnnQuantMatmulWeightNz{GetWorkspaceSize,}
 * With none of them defined, every part is built into one library.
 *
 * Behaviour switches, read from the environment at call time:
 *   FAKE_CANN_SOC           the SoC name aclrtGetSocName returns (default Ascend910B1)
 *   FAKE_CANN_DEVICE_COUNT  devices aclrtGetDeviceCount reports (default 8)
 *   FAKE_CANN_STATUS        status of every GetWorkspaceSize call that passes its checks (default 0)
 *   FAKE_CANN_WORKSPACE     workspace size reported (default 1024)
 *   FAKE_CANN_LAUNCH_STATUS status of every launch that passes its checks (default 0)
 *   FAKE_CANN_SYNC_STATUS   status of aclrtSynchronizeStream (default 0)
 *   FAKE_CANN_SYNC_FAIL_AT  n: only the process's n-th synchronize fails (status FAKE_CANN_SYNC_STATUS,
 *                           default 507015), for a worker process whose environment is fixed
 *   FAKE_CANN_RESET_STATUS  status of aclrtResetDevice / aclrtResetDeviceForce (default 0: success)
 * A launch that succeeds writes the byte pattern (i * 37 + 11) mod 256 over the whole storage of
 * the operator's first output (mRef for ApplyAdamWQuant, outWeight for WeightQuantPreprocess, varRef
 * for ApplyAdamWV2). aclnnAdd, aclnnPowTensorScalar and aclnnLtScalar compute their documented
 * results instead (self + alpha * other, self ** exponent, self < other) through each tensor's view,
 * broadcasting, in float32 for FLOAT, FLOAT16 and BF16 (one rounding to the output's dtype) and in
 * double for DOUBLE, so that value cases can be judged through the backend.
 *
 * Where the runtime's behaviour is known from its source, the stand-in follows it:
 * - aclGetRecentErrMsg returns a per-thread text that reading never clears; a new host error is
 *   put in front of it with a newline, a device error message replaces it (acl.cpp).
 * - aclrtSetDevice counts references; aclrtResetDevice releases one, aclrtResetDeviceForce all;
 *   when none is left the device's streams are gone and a fault is cleared. Streams and memory
 *   need a set device (107002), a launch or synchronize needs a live stream (107003).
 * - A failed launch or synchronize (the switches above) leaves a fault: every later launch and
 *   synchronize fails with the same status until the device is reset (the context stays broken).
 * - The launch checks its executor (161001), a NULL workspace with a size > 0 (161001) and, for
 *   operators whose second phase is nnopbase's generated one, a size below what the first phase
 *   asked for (161002).
 * - aclnnWeightQuantPreprocessGetWorkspaceSize checks its NULL out-pointers first (561103), then
 *   the SoC (361001 unless Ascend950*), then its four mandatory tensors (161001).
 * - aclDestroyTensor(NULL) returns 0.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(FAKE_RUNTIME) && !defined(FAKE_TENSOR) && !defined(FAKE_AAWQ) && !defined(FAKE_WQP) \
    && !defined(FAKE_QMM)
#define FAKE_RUNTIME
#define FAKE_TENSOR
#define FAKE_AAWQ
#define FAKE_WQP
#define FAKE_QMM
#endif

#define EXPORT __attribute__((visibility("default")))
#define MAYBE_UNUSED __attribute__((unused))

typedef int aclError;
typedef int aclnnStatus;
typedef void *aclrtStream;

#define FAKE_PARAM_NULLPTR 161001
#define FAKE_PARAM_INVALID 161002
#define FAKE_RUNTIME_ERROR 361001
#define FAKE_INNER_NULLPTR 561103
#define FAKE_INVALID_PARAM 100000
#define FAKE_REPEAT_INITIALIZE 100002
#define FAKE_INVALID_DEVICE 107001
#define FAKE_CONTEXT_NULL 107002
#define FAKE_STREAM_CONTEXT 107003

typedef struct FakeTensor {
    uint32_t magic;
    int id;
    int dtype;
    int format;
    int64_t offset;
    uint64_t view_num;
    int64_t *view;
    int has_strides;
    int64_t *strides;
    uint64_t storage_num;
    int64_t *storage;
    void *data;
} FakeTensor;

#define TENSOR_MAGIC 0x7e45a0c1u

/* aclScalar: its dtype and the bytes of one element of it */
typedef struct FakeScalar {
    uint32_t magic;
    int dtype;
    unsigned char bytes[16];
} FakeScalar;

#define SCALAR_MAGIC 0x5ca1a7b1u

/* aclIntArray (int64), aclBoolArray (bool), aclFloatArray (float): a copy of the caller's values */
typedef struct FakeArray {
    uint32_t magic;
    char kind;                     /* 'i', 'b' or 'f' */
    uint64_t size;
    void *values;
} FakeArray;

#define ARRAY_MAGIC 0xa77a7a11u

typedef struct FakeExecutor {
    uint32_t magic;
    const char *api;
    FakeTensor *out;
    uint64_t workspace;          /* what the first phase asked for */
    /* an operator that computes its result: the kernel and its operands (else the byte pattern) */
    void (*kernel)(const struct FakeExecutor *e);
    const FakeTensor *a, *b;
    double scalar;
} FakeExecutor;

#define EXECUTOR_MAGIC 0x3c0ffee5u

/* ---- helpers shared by the parts (defined and exported by the runtime part) ---- */
void fake_log_event(const char *fmt, ...);
void fake_set_error(const char *fmt, ...);
void fake_set_device_error(const char *fmt, ...);
int fake_is_device(const void *ptr, size_t *remaining);
int fake_is_stream(const void *stream);
int fake_fault_status(void);
void fake_set_fault(int status);
const char *aclrtGetSocName(void);
int fake_next_tensor_id(void);
void fake_count_tensor(int delta);
long fake_env_long(const char *name, long fallback);

/* JSON fragments are built in a caller-provided buffer. */
typedef struct Buf {
    char *data;
    size_t len, cap;
} Buf;

MAYBE_UNUSED static void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = vsnprintf(b->data ? b->data + b->len : NULL, b->data ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->data && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) return;
        b->data = grown;
        b->cap = cap;
    }
}

MAYBE_UNUSED static void buf_dims(Buf *b, const int64_t *dims, uint64_t n) {
    buf_printf(b, "[");
    for (uint64_t i = 0; i < n; ++i) buf_printf(b, "%s%lld", i ? "," : "", (long long)dims[i]);
    buf_printf(b, "]");
}

MAYBE_UNUSED static void buf_double(Buf *b, double v) {
    if (isnan(v)) buf_printf(b, "NaN");
    else if (isinf(v)) buf_printf(b, v > 0 ? "Infinity" : "-Infinity");
    else buf_printf(b, "%.17g", v);
}

MAYBE_UNUSED static void buf_string(Buf *b, const char *s) {
    if (!s) {
        buf_printf(b, "null");
        return;
    }
    buf_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') buf_printf(b, "\\%c", *p);
        else if (*p < 0x20) buf_printf(b, "\\u%04x", *p);
        else buf_printf(b, "%c", *p);
    }
    buf_printf(b, "\"");
}

MAYBE_UNUSED static void buf_hex(Buf *b, const void *ptr, size_t n) {
    const unsigned char *p = ptr;
    buf_printf(b, "\"");
    for (size_t i = 0; i < n; ++i) buf_printf(b, "%02x", p[i]);
    buf_printf(b, "\"");
}

MAYBE_UNUSED static int element_bits(int dtype) {
    switch (dtype) {
    case 0: case 3: case 8: return 32;            /* FLOAT INT32 UINT32 */
    case 1: case 6: case 7: case 27: return 16;   /* FLOAT16 INT16 UINT16 BF16 */
    case 9: case 10: case 11: case 16: return 64; /* INT64 UINT64 DOUBLE COMPLEX64 */
    case 17: return 128;                          /* COMPLEX128 */
    case 29: case 40: case 41: return 4;          /* INT4 FLOAT4_E2M1 FLOAT4_E1M2 */
    default: return 8;
    }
}

/* ====================================================================================== runtime */
#ifdef FAKE_RUNTIME

static Buf g_log;
static int g_events;
static char *g_log_copy;
static int g_init_calls;
static int g_next_id = 1;
static int g_live_tensors;

/* the recent-error text: per thread, never cleared by reading */
static __thread char *g_err_text;
static __thread char *g_err_host;      /* host errors not yet read */
static __thread char *g_err_device;    /* a device error message not yet read */

/* device state: references from aclrtSetDevice, live streams, a fault left by a failed kernel */
static int g_device_refs;
static int g_fault_status;
static long g_syncs;
#define MAX_STREAMS 64
static char g_stream_tokens[MAX_STREAMS];
static int g_stream_live[MAX_STREAMS];

typedef struct Alloc {
    char *ptr;
    size_t size;
} Alloc;
static Alloc *g_allocs;
static size_t g_nallocs, g_cap_allocs;

EXPORT long fake_env_long(const char *name, long fallback) {
    const char *v = getenv(name);
    return (v && *v) ? strtol(v, NULL, 10) : fallback;
}

EXPORT void fake_log_event(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[1];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, 0, fmt, ap2);
    va_end(ap2);
    char *text = malloc((size_t)n + 1);
    if (text) {
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        buf_printf(&g_log, "%s%s", g_events++ ? ",\n" : "", text);
        free(text);
    }
    va_end(ap);
}

static char *vformat(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *text = malloc((size_t)n + 1);
    if (text) vsnprintf(text, (size_t)n + 1, fmt, ap);
    return text;
}

/* "first\nsecond" (either may be missing); frees both */
static char *join_lines(char *first, char *second) {
    if (!first || !*first) { free(first); return second; }
    if (!second || !*second) { free(second); return first; }
    size_t a = strlen(first), b = strlen(second);
    char *out = malloc(a + b + 2);
    if (out) {
        memcpy(out, first, a);
        out[a] = '\n';
        memcpy(out + a + 1, second, b + 1);
    }
    free(first);
    free(second);
    return out;
}

/* A host error: the newest is read in front of the older ones. */
EXPORT void fake_set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_err_host = join_lines(vformat(fmt, ap), g_err_host);
    va_end(ap);
}

/* A device error message: reading it replaces the whole accumulated text. */
EXPORT void fake_set_device_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    free(g_err_device);
    g_err_device = vformat(fmt, ap);
    va_end(ap);
}

EXPORT int fake_is_device(const void *ptr, size_t *remaining) {
    const char *p = ptr;
    for (size_t i = 0; i < g_nallocs; ++i) {
        if (p >= g_allocs[i].ptr && p < g_allocs[i].ptr + g_allocs[i].size) {
            if (remaining) *remaining = (size_t)(g_allocs[i].ptr + g_allocs[i].size - p);
            return 1;
        }
    }
    if (remaining) *remaining = 0;
    return 0;
}

EXPORT int fake_is_stream(const void *stream) {
    const char *p = stream;
    return p >= g_stream_tokens && p < g_stream_tokens + MAX_STREAMS && g_stream_live[p - g_stream_tokens];
}
EXPORT int fake_fault_status(void) { return g_fault_status; }
EXPORT void fake_set_fault(int status) { g_fault_status = status; }
EXPORT int fake_next_tensor_id(void) { return g_next_id++; }
EXPORT void fake_count_tensor(int delta) { g_live_tensors += delta; }

/* ---- the query API ---- */
EXPORT const char *fake_call_log(void) {
    free(g_log_copy);
    size_t n = g_log.len;
    g_log_copy = malloc(n + 3);
    if (!g_log_copy) return "[]";
    g_log_copy[0] = '[';
    if (n) memcpy(g_log_copy + 1, g_log.data, n);
    g_log_copy[n + 1] = ']';
    g_log_copy[n + 2] = '\0';
    return g_log_copy;
}

/* Clears the call log only: like the runtime, the recent-error text is never cleared. */
EXPORT void fake_reset(void) {
    g_log.len = 0;
    g_events = 0;
}

EXPORT int fake_live_tensors(void) { return g_live_tensors; }
EXPORT int fake_live_allocations(void) { return (int)g_nallocs; }
EXPORT int fake_init_calls(void) { return g_init_calls; }
EXPORT int fake_device_refs(void) { return g_device_refs; }

/* ---- ACL runtime ---- */
EXPORT aclError aclInit(const char *configPath) {
    ++g_init_calls;
    Buf b = {0};
    buf_string(&b, configPath);
    fake_log_event("{\"ev\":\"aclInit\",\"config\":%s}", b.data);
    free(b.data);
    return g_init_calls == 1 ? 0 : FAKE_REPEAT_INITIALIZE;
}

EXPORT aclError aclFinalize(void) {
    fake_log_event("{\"ev\":\"aclFinalize\"}");
    return 0;
}

EXPORT aclError aclrtGetDeviceCount(uint32_t *count) {
    if (!count) return FAKE_INVALID_PARAM;
    *count = (uint32_t)fake_env_long("FAKE_CANN_DEVICE_COUNT", 8);
    return 0;
}

EXPORT aclError aclrtSetDevice(int32_t deviceId) {
    fake_log_event("{\"ev\":\"aclrtSetDevice\",\"device\":%d}", deviceId);
    if (deviceId < 0 || deviceId >= fake_env_long("FAKE_CANN_DEVICE_COUNT", 8)) {
        fake_set_error("EE1001: fake device %d does not exist", deviceId);
        return FAKE_INVALID_DEVICE;
    }
    ++g_device_refs;
    const char *log = getenv("FAKE_CANN_DEVICE_LOG");   /* which process took which device */
    if (log && *log) {
        FILE *fh = fopen(log, "a");
        if (fh) { fprintf(fh, "%ld %d\n", (long)getpid(), deviceId); fclose(fh); }
    }
    return 0;
}

static void release_device(void) {
    memset(g_stream_live, 0, sizeof g_stream_live);
    g_fault_status = 0;
}

static aclError reset_refused(const char *api) {
    long status = fake_env_long("FAKE_CANN_RESET_STATUS", 0);
    if (status) fake_set_error("EE9999: fake %s failure", api);
    return (aclError)status;
}

EXPORT aclError aclrtResetDevice(int32_t deviceId) {
    fake_log_event("{\"ev\":\"aclrtResetDevice\",\"device\":%d}", deviceId);
    aclError refused = reset_refused("aclrtResetDevice");
    if (refused) return refused;
    if (g_device_refs > 0 && --g_device_refs == 0) release_device();
    return 0;
}

EXPORT aclError aclrtResetDeviceForce(int32_t deviceId) {
    fake_log_event("{\"ev\":\"aclrtResetDeviceForce\",\"device\":%d}", deviceId);
    aclError refused = reset_refused("aclrtResetDeviceForce");
    if (refused) return refused;
    g_device_refs = 0;
    release_device();
    return 0;
}

EXPORT aclError aclrtCreateStream(aclrtStream *stream) {
    if (!stream) return FAKE_INVALID_PARAM;
    if (!g_device_refs) {
        fake_set_error("EE1002: aclrtCreateStream without a set device");
        return FAKE_CONTEXT_NULL;
    }
    for (int i = 0; i < MAX_STREAMS; ++i) {
        if (!g_stream_live[i]) {
            g_stream_live[i] = 1;
            *stream = &g_stream_tokens[i];
            fake_log_event("{\"ev\":\"aclrtCreateStream\",\"stream\":%d}", i);
            return 0;
        }
    }
    return FAKE_INVALID_PARAM;
}

EXPORT aclError aclrtDestroyStream(aclrtStream stream) {
    int known = fake_is_stream(stream);
    fake_log_event("{\"ev\":\"aclrtDestroyStream\",\"known\":%s}", known ? "true" : "false");
    if (!known) return FAKE_STREAM_CONTEXT;
    g_stream_live[(char *)stream - g_stream_tokens] = 0;
    return 0;
}

EXPORT aclError aclrtSynchronizeStream(aclrtStream stream) {
    int known = fake_is_stream(stream);
    fake_log_event("{\"ev\":\"aclrtSynchronizeStream\",\"known\":%s}", known ? "true" : "false");
    if (!known) {
        fake_set_error("EE1003: aclrtSynchronizeStream on a stream that does not exist");
        return FAKE_STREAM_CONTEXT;
    }
    if (g_fault_status) {
        fake_set_error("EE9999: the stream is broken by an earlier kernel fault");
        return g_fault_status;
    }
    long fail_at = fake_env_long("FAKE_CANN_SYNC_FAIL_AT", 0);
    long status = fake_env_long("FAKE_CANN_SYNC_STATUS", fail_at ? 507015 : 0);
    if (fail_at && ++g_syncs != fail_at) status = 0;
    if (status) {
        g_fault_status = (int)status;
        fake_set_device_error("EZ9999: fake kernel failure on the stream (device message)");
        fake_set_error("EE9999: aclrtSynchronizeStream failed with %ld", status);
    }
    return (aclError)status;
}

EXPORT aclError aclrtMalloc(void **devPtr, size_t size, int policy) {
    if (!g_device_refs) {
        fake_set_error("EE1002: aclrtMalloc without a set device");
        return FAKE_CONTEXT_NULL;
    }
    if (!devPtr || size == 0) {
        fake_set_error("EE1003: aclrtMalloc of %zu bytes", size);
        return FAKE_INVALID_PARAM;
    }
    void *p = NULL;
    size_t rounded = (size + 63) / 64 * 64;
    if (posix_memalign(&p, 64, rounded)) return FAKE_INVALID_PARAM;
    memset(p, 0xA5, rounded); /* uninitialised device memory */
    if (g_nallocs == g_cap_allocs) {
        g_cap_allocs = g_cap_allocs ? 2 * g_cap_allocs : 64;
        g_allocs = realloc(g_allocs, g_cap_allocs * sizeof *g_allocs);
    }
    g_allocs[g_nallocs].ptr = p;
    g_allocs[g_nallocs].size = size;
    ++g_nallocs;
    *devPtr = p;
    fake_log_event("{\"ev\":\"aclrtMalloc\",\"ptr\":%llu,\"size\":%zu,\"policy\":%d}",
                   (unsigned long long)(uintptr_t)p, size, policy);
    return 0;
}

EXPORT aclError aclrtFree(void *devPtr) {
    for (size_t i = 0; i < g_nallocs; ++i) {
        if (g_allocs[i].ptr == devPtr) {
            unsigned long long address = (unsigned long long)(uintptr_t)devPtr;
            free(devPtr);
            g_allocs[i] = g_allocs[--g_nallocs];
            fake_log_event("{\"ev\":\"aclrtFree\",\"ptr\":%llu}", address);
            return 0;
        }
    }
    fake_log_event("{\"ev\":\"aclrtFree\",\"ptr\":%llu,\"unknown\":true}",
                   (unsigned long long)(uintptr_t)devPtr);
    return FAKE_INVALID_PARAM;
}

/* kinds: 0 host->host, 1 host->device, 2 device->host, 3 device->device */
EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, int kind) {
    size_t room = 0;
    int ok = count <= destMax && dst && src;
    if (ok && (kind == 1 || kind == 3)) ok = fake_is_device(dst, &room) && count <= room;
    if (ok && (kind == 2 || kind == 3)) ok = fake_is_device(src, &room) && count <= room;
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"aclrtMemcpy\",\"kind\":%d,\"dst\":%llu,\"src\":%llu,\"count\":%zu,"
               "\"destMax\":%zu,\"ok\":%s", kind, (unsigned long long)(uintptr_t)dst,
               (unsigned long long)(uintptr_t)src, count, destMax, ok ? "true" : "false");
    if (ok && kind == 1) {
        buf_printf(&b, ",\"hex\":");
        buf_hex(&b, src, count < 65536 ? count : 65536);
    }
    buf_printf(&b, "}");
    fake_log_event("%s", b.data);
    free(b.data);
    if (!ok) {
        fake_set_error("EE1002: aclrtMemcpy kind %d of %zu bytes rejected", kind, count);
        return FAKE_INVALID_PARAM;
    }
    memmove(dst, src, count);
    return 0;
}

EXPORT const char *aclrtGetSocName(void) {
    const char *soc = getenv("FAKE_CANN_SOC");
    return (soc && *soc) ? soc : "Ascend910B1";
}

/* The accumulated text of this thread: an unread device message replaces it, unread host errors
 * go in front of it. Reading does not clear it. */
EXPORT const char *aclGetRecentErrMsg(void) {
    if (g_err_device) {
        free(g_err_text);
        g_err_text = g_err_device;
        g_err_device = NULL;
    }
    if (g_err_host) {
        g_err_text = join_lines(g_err_host, g_err_text);
        g_err_host = NULL;
    }
    return (g_err_text && *g_err_text) ? g_err_text : NULL;
}

#endif /* FAKE_RUNTIME */

/* ======================================================================================= tensor */
#ifdef FAKE_TENSOR

static int64_t *copy_dims(const int64_t *dims, uint64_t n) {
    int64_t *out = malloc((n ? n : 1) * sizeof *out);
    if (out && n) memcpy(out, dims, n * sizeof *out);
    return out;
}

EXPORT FakeTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, int dataType,
                                   const int64_t *stride, int64_t offset, int format,
                                   const int64_t *storageDims, uint64_t storageDimsNum,
                                   void *tensorData) {
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0))
        return NULL;
    FakeTensor *t = calloc(1, sizeof *t);
    t->magic = TENSOR_MAGIC;
    t->id = fake_next_tensor_id();
    t->dtype = dataType;
    t->format = format;
    t->offset = offset;
    t->view_num = viewDimsNum;
    t->view = copy_dims(viewDims, viewDimsNum);
    t->has_strides = stride != NULL;
    t->strides = stride ? copy_dims(stride, viewDimsNum) : NULL;
    t->storage_num = storageDimsNum;
    t->storage = copy_dims(storageDims, storageDimsNum);
    t->data = tensorData;
    fake_count_tensor(1);
    fake_log_event("{\"ev\":\"aclCreateTensor\",\"id\":%d,\"data\":%llu}", t->id,
                   (unsigned long long)(uintptr_t)tensorData);
    return t;
}

EXPORT aclnnStatus aclDestroyTensor(const FakeTensor *tensor) {
    if (!tensor) return 0;
    if (tensor->magic != TENSOR_MAGIC) return FAKE_PARAM_NULLPTR;
    FakeTensor *t = (FakeTensor *)tensor;
    fake_log_event("{\"ev\":\"aclDestroyTensor\",\"id\":%d}", t->id);
    t->magic = 0;
    free(t->view);
    free(t->strides);
    free(t->storage);
    free(t);
    fake_count_tensor(-1);
    return 0;
}

/* Frees an executor that will not be launched (a first phase run on its own). */
EXPORT aclnnStatus aclDestroyAclOpExecutor(void *executor) {
    FakeExecutor *e = executor;
    int known = e && e->magic == EXECUTOR_MAGIC;
    fake_log_event("{\"ev\":\"aclDestroyAclOpExecutor\",\"known\":%s}", known ? "true" : "false");
    if (!known) return FAKE_PARAM_NULLPTR;
    e->magic = 0;
    free(e);
    return 0;
}

EXPORT FakeScalar *aclCreateScalar(void *value, int dataType) {
    if (!value) return NULL;
    FakeScalar *sc = calloc(1, sizeof *sc);
    sc->magic = SCALAR_MAGIC;
    sc->dtype = dataType;
    int bits = element_bits(dataType);
    memcpy(sc->bytes, value, (size_t)(bits >= 8 && bits <= 128 ? bits / 8 : 1));
    fake_count_tensor(1);
    return sc;
}

EXPORT aclnnStatus aclDestroyScalar(const FakeScalar *scalar) {
    if (!scalar) return 0;
    if (scalar->magic != SCALAR_MAGIC) return FAKE_PARAM_NULLPTR;
    ((FakeScalar *)scalar)->magic = 0;
    free((FakeScalar *)scalar);
    fake_count_tensor(-1);
    return 0;
}

static FakeArray *create_array(char kind, const void *values, uint64_t size, size_t item) {
    if (!values && size > 0) return NULL;
    FakeArray *a = calloc(1, sizeof *a);
    a->magic = ARRAY_MAGIC;
    a->kind = kind;
    a->size = size;
    a->values = malloc(size ? size * item : 1);
    if (size) memcpy(a->values, values, size * item);
    fake_count_tensor(1);
    return a;
}

static aclnnStatus destroy_array(const FakeArray *array, char kind) {
    if (!array) return 0;
    if (array->magic != ARRAY_MAGIC || array->kind != kind) return FAKE_PARAM_NULLPTR;
    FakeArray *a = (FakeArray *)array;
    a->magic = 0;
    free(a->values);
    free(a);
    fake_count_tensor(-1);
    return 0;
}

EXPORT FakeArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    return create_array('i', value, size, sizeof(int64_t));
}
EXPORT FakeArray *aclCreateBoolArray(const _Bool *value, uint64_t size) {
    return create_array('b', value, size, sizeof(_Bool));
}
EXPORT FakeArray *aclCreateFloatArray(const float *value, uint64_t size) {
    return create_array('f', value, size, sizeof(float));
}
EXPORT aclnnStatus aclDestroyIntArray(const FakeArray *array) { return destroy_array(array, 'i'); }
EXPORT aclnnStatus aclDestroyBoolArray(const FakeArray *array) { return destroy_array(array, 'b'); }
EXPORT aclnnStatus aclDestroyFloatArray(const FakeArray *array) { return destroy_array(array, 'f'); }

#endif /* FAKE_TENSOR */

/* ===================================================================================== operators */
#if defined(FAKE_AAWQ) || defined(FAKE_WQP) || defined(FAKE_QMM)

static void buf_tensor(Buf *b, const char *name, const FakeTensor *t, int first) {
    buf_printf(b, "%s\"%s\":", first ? "" : ",", name);
    if (!t) {
        buf_printf(b, "null");
        return;
    }
    if (t->magic != TENSOR_MAGIC) {
        buf_printf(b, "\"invalid\"");
        return;
    }
    buf_printf(b, "{\"id\":%d,\"dtype\":%d,\"format\":%d,\"offset\":%lld,\"view\":", t->id, t->dtype,
               t->format, (long long)t->offset);
    buf_dims(b, t->view, t->view_num);
    buf_printf(b, ",\"strides\":");
    if (t->has_strides) buf_dims(b, t->strides, t->view_num);
    else buf_printf(b, "null");
    buf_printf(b, ",\"storage\":");
    buf_dims(b, t->storage, t->storage_num);
    buf_printf(b, ",\"data\":%llu,\"device\":%s}", (unsigned long long)(uintptr_t)t->data,
               fake_is_device(t->data, NULL) ? "true" : "false");
}

MAYBE_UNUSED static void buf_scalar(Buf *b, const char *name, const FakeScalar *sc) {
    buf_printf(b, ",\"%s\":", name);
    if (!sc) { buf_printf(b, "null"); return; }
    if (sc->magic != SCALAR_MAGIC) { buf_printf(b, "\"invalid\""); return; }
    buf_printf(b, "{\"dtype\":%d,\"bytes\":\"", sc->dtype);
    int n = element_bits(sc->dtype) / 8;
    for (int i = 0; i < n && i < 16; ++i) buf_printf(b, "%02x", sc->bytes[i]);
    buf_printf(b, "\"}");
}

/* How an operator's own API behaves where operators differ. */
typedef struct OpBehaviour {
    const char *api;
    aclnnStatus null_out_pointer;   /* status for a NULL workspaceSize or executor */
    int launch_checks_size;         /* nnopbase's generated second phase: size below phase 1 -> 161002 */
    int frees_on_null_workspace;    /* the composite second phase deletes the executor on that error */
} OpBehaviour;

/* Closes and logs a first phase's event. */
static void log_first_phase(Buf *b, const uint64_t *workspaceSize, void **executor) {
    buf_printf(b, ",\"workspaceSize_null\":%s,\"executor_null\":%s}", workspaceSize ? "false" : "true",
               executor ? "false" : "true");
    fake_log_event("%s", b->data);
    free(b->data);
}

/* Common tail of every first phase: out-pointer checks, injected status, the executor. */
static aclnnStatus first_phase_finish(Buf *b, const OpBehaviour *op, FakeTensor *out,
                                      uint64_t *workspaceSize, void **executor) {
    long status = fake_env_long("FAKE_CANN_STATUS", 0);
    log_first_phase(b, workspaceSize, executor);
    if (!workspaceSize || !executor) {
        fake_set_error("EZ1001: %sGetWorkspaceSize: workspaceSize or executor is nullptr", op->api);
        return op->null_out_pointer;
    }
    if (status) {
        fake_set_error("EZ1001: fake rejection by %sGetWorkspaceSize", op->api);
        return (aclnnStatus)status;
    }
    FakeExecutor *e = calloc(1, sizeof *e);
    e->magic = EXECUTOR_MAGIC;
    e->api = op->api;
    e->out = out;
    e->workspace = (uint64_t)fake_env_long("FAKE_CANN_WORKSPACE", 1024);
    *workspaceSize = e->workspace;
    *executor = e;
    return 0;
}

static aclnnStatus launch(const OpBehaviour *op, void *workspace, uint64_t workspaceSize,
                          void *executor, aclrtStream stream) {
    FakeExecutor *e = executor;
    int known = e && e->magic == EXECUTOR_MAGIC;
    size_t ws_room = 0;
    int ws_device = workspace && fake_is_device(workspace, &ws_room);
    fake_log_event("{\"ev\":\"%s\",\"workspace_null\":%s,\"workspace_device\":%s,"
                   "\"workspace_room\":%zu,\"workspaceSize\":%llu,\"executor_known\":%s,"
                   "\"stream_known\":%s}", op->api, workspace ? "false" : "true",
                   ws_device ? "true" : "false", ws_room, (unsigned long long)workspaceSize,
                   known ? "true" : "false", fake_is_stream(stream) ? "true" : "false");
    if (!known) {
        fake_set_error("EZ1001: %s: executor is nullptr or unknown", op->api);
        return FAKE_PARAM_NULLPTR;
    }
    if (workspaceSize > 0 && !workspace) {
        fake_set_error("EZ1001: %s: workspace is nullptr with workspaceSize %llu", op->api,
                       (unsigned long long)workspaceSize);
        if (op->frees_on_null_workspace) {
            e->magic = 0;
            free(e);
        }
        return FAKE_PARAM_NULLPTR;
    }
    if (op->launch_checks_size && workspaceSize < e->workspace) {
        fake_set_error("EZ1001: %s: workspace size %llu below the %llu the first phase asked for",
                       op->api, (unsigned long long)workspaceSize, (unsigned long long)e->workspace);
        return FAKE_PARAM_INVALID;
    }
    if (!fake_is_stream(stream)) {
        fake_set_error("EE1003: %s: the stream does not exist", op->api);
        return FAKE_STREAM_CONTEXT;
    }
    FakeTensor *out = e->out;
    FakeExecutor done = *e;
    e->magic = 0;
    free(e);
    if (fake_fault_status()) {
        fake_set_error("EE9999: %s: the device context is broken by an earlier kernel fault", op->api);
        return fake_fault_status();
    }
    long status = fake_env_long("FAKE_CANN_LAUNCH_STATUS", 0);
    if (status) {
        fake_set_fault((int)status);
        fake_set_error("EZ9999: fake launch failure in %s", op->api);
        return (aclnnStatus)status;
    }
    if (done.kernel) {
        done.kernel(&done);
        return 0;
    }
    if (out && out->magic == TENSOR_MAGIC && out->data) {
        uint64_t numel = 1;
        for (uint64_t i = 0; i < out->storage_num; ++i) numel *= (uint64_t)out->storage[i];
        size_t bytes = (size_t)((numel * (uint64_t)element_bits(out->dtype) + 7) / 8);
        size_t room = 0;
        if (fake_is_device(out->data, &room)) {
            unsigned char *p = out->data;
            for (size_t i = 0; i < bytes && i < room; ++i) p[i] = (unsigned char)(i * 37 + 11);
        }
    }
    return 0;
}

#endif

#ifdef FAKE_AAWQ

/* generated aclnn code over nnopbase: NULL out-pointers 161001, nnopbase's launch checks */
static const OpBehaviour AAWQ = {"aclnnApplyAdamWQuant", FAKE_PARAM_NULLPTR, 1, 0};

EXPORT aclnnStatus aclnnApplyAdamWQuantGetWorkspaceSize(
    FakeTensor *varRef, const FakeTensor *grad, FakeTensor *mRef, FakeTensor *vRef,
    const FakeTensor *qmapM, const FakeTensor *qmapV, FakeTensor *absmaxMRef, FakeTensor *absmaxVRef,
    const FakeTensor *step, double lr, double beta1, double beta2, double weightDecay, double eps,
    double gnormScale, char *quantModeOptional, int64_t blockSize, uint64_t *workspaceSize,
    void **executor) {
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"aclnnApplyAdamWQuantGetWorkspaceSize\",\"tensors\":{");
    buf_tensor(&b, "varRef", varRef, 1);
    buf_tensor(&b, "grad", grad, 0);
    buf_tensor(&b, "mRef", mRef, 0);
    buf_tensor(&b, "vRef", vRef, 0);
    buf_tensor(&b, "qmapM", qmapM, 0);
    buf_tensor(&b, "qmapV", qmapV, 0);
    buf_tensor(&b, "absmaxMRef", absmaxMRef, 0);
    buf_tensor(&b, "absmaxVRef", absmaxVRef, 0);
    buf_tensor(&b, "step", step, 0);
    buf_printf(&b, "},\"lr\":");
    buf_double(&b, lr);
    buf_printf(&b, ",\"beta1\":");
    buf_double(&b, beta1);
    buf_printf(&b, ",\"beta2\":");
    buf_double(&b, beta2);
    buf_printf(&b, ",\"weightDecay\":");
    buf_double(&b, weightDecay);
    buf_printf(&b, ",\"eps\":");
    buf_double(&b, eps);
    buf_printf(&b, ",\"gnormScale\":");
    buf_double(&b, gnormScale);
    buf_printf(&b, ",\"quantModeOptional\":");
    buf_string(&b, quantModeOptional);
    buf_printf(&b, ",\"blockSize\":%lld", (long long)blockSize);
    const FakeTensor *tensors[] = {varRef, grad, mRef, vRef, qmapM, qmapV, absmaxMRef, absmaxVRef, step};
    const char *names[] = {"varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef",
                           "absmaxVRef", "step"};
    for (int i = 0; i < 9; ++i) {
        if (!tensors[i]) {     /* the generated code's NULL checks, in input order */
            log_first_phase(&b, workspaceSize, executor);
            fake_set_error("EZ1001: aclnnApplyAdamWQuantGetWorkspaceSize: %s is nullptr", names[i]);
            return FAKE_PARAM_NULLPTR;
        }
    }
    return first_phase_finish(&b, &AAWQ, mRef, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnApplyAdamWQuant(void *workspace, uint64_t workspaceSize, void *executor,
                                        aclrtStream stream) {
    return launch(&AAWQ, workspace, workspaceSize, executor, stream);
}

/* hand-written op_api (ops-nn): NULL var, m, v, maxGradNorm with amsgrad, grad, step 161001; the
 * out-pointers are written without a check on the device (here 561103); the shared second phase */
static const OpBehaviour AAWV2 = {"aclnnApplyAdamWV2", FAKE_INNER_NULLPTR, 0, 1};

EXPORT aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(
    FakeTensor *varRef, FakeTensor *mRef, FakeTensor *vRef, FakeTensor *maxGradNormOptionalRef,
    const FakeTensor *grad, const FakeTensor *step, float lr, float beta1, float beta2,
    float weightDecay, float eps, _Bool amsgrad, _Bool maximize, uint64_t *workspaceSize,
    void **executor) {
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"aclnnApplyAdamWV2GetWorkspaceSize\",\"tensors\":{");
    buf_tensor(&b, "varRef", varRef, 1);
    buf_tensor(&b, "mRef", mRef, 0);
    buf_tensor(&b, "vRef", vRef, 0);
    buf_tensor(&b, "maxGradNormOptionalRef", maxGradNormOptionalRef, 0);
    buf_tensor(&b, "grad", grad, 0);
    buf_tensor(&b, "step", step, 0);
    const float floats[] = {lr, beta1, beta2, weightDecay, eps};
    const char *float_names[] = {"lr", "beta1", "beta2", "weightDecay", "eps"};
    buf_printf(&b, "}");
    for (int i = 0; i < 5; ++i) {
        buf_printf(&b, ",\"%s\":", float_names[i]);
        buf_double(&b, (double)floats[i]);
    }
    buf_printf(&b, ",\"amsgrad\":%s,\"maximize\":%s", amsgrad ? "true" : "false",
               maximize ? "true" : "false");
    const FakeTensor *tensors[] = {varRef, mRef, vRef, amsgrad ? maxGradNormOptionalRef : varRef, grad, step};
    const char *names[] = {"varRef", "mRef", "vRef", "maxGradNormOptionalRef", "grad", "step"};
    for (int i = 0; i < 6; ++i) {
        if (!tensors[i]) {
            log_first_phase(&b, workspaceSize, executor);
            fake_set_error("EZ1001: aclnnApplyAdamWV2GetWorkspaceSize: %s is nullptr", names[i]);
            return FAKE_PARAM_NULLPTR;
        }
    }
    return first_phase_finish(&b, &AAWV2, varRef, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnApplyAdamWV2(void *workspace, uint64_t workspaceSize, void *executor,
                                     aclrtStream stream) {
    return launch(&AAWV2, workspace, workspaceSize, executor, stream);
}

#endif /* FAKE_AAWQ */

#ifdef FAKE_WQP

/* hand-written op_api (ops-math): NULL out-pointers 561103; the composite second phase */
static const OpBehaviour WQP = {"aclnnWeightQuantPreprocess", FAKE_INNER_NULLPTR, 0, 1};

EXPORT aclnnStatus aclnnWeightQuantPreprocessGetWorkspaceSize(
    const FakeTensor *weight, const FakeTensor *weightScale, const FakeTensor *weightOffsetOptional,
    const FakeTensor *biasOptional, int xDtype, int xScaleDtype, int64_t kGroupSize,
    FakeTensor *outWeight, FakeTensor *outWeightScale, FakeTensor *outWeightOffsetOptional,
    FakeTensor *outBiasOptional, uint64_t *workspaceSize, void **executor) {
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"aclnnWeightQuantPreprocessGetWorkspaceSize\",\"tensors\":{");
    buf_tensor(&b, "weight", weight, 1);
    buf_tensor(&b, "weightScale", weightScale, 0);
    buf_tensor(&b, "weightOffsetOptional", weightOffsetOptional, 0);
    buf_tensor(&b, "biasOptional", biasOptional, 0);
    buf_tensor(&b, "outWeight", outWeight, 0);
    buf_tensor(&b, "outWeightScale", outWeightScale, 0);
    buf_tensor(&b, "outWeightOffsetOptional", outWeightOffsetOptional, 0);
    buf_tensor(&b, "outBiasOptional", outBiasOptional, 0);
    buf_printf(&b, "},\"xDtype\":%d,\"xScaleDtype\":%d,\"kGroupSize\":%lld", xDtype, xScaleDtype,
               (long long)kGroupSize);
    if (!workspaceSize || !executor)          /* checked first, before the product and any tensor */
        return first_phase_finish(&b, &WQP, outWeight, workspaceSize, executor);
    const char *soc = aclrtGetSocName();
    const FakeTensor *mandatory[] = {weight, weightScale, outWeight, outWeightScale};
    const char *names[] = {"weight", "weightScale", "outWeight", "outWeightScale"};
    aclnnStatus early = 0;
    if (!soc || strncmp(soc, "Ascend950", 9) != 0) {
        fake_set_error("EZ1001: aclnnWeightQuantPreprocessGetWorkspaceSize: not supported on %s",
                       soc ? soc : "this SoC");
        early = FAKE_RUNTIME_ERROR;
    }
    for (int i = 0; i < 4 && !early; ++i) {
        if (!mandatory[i]) {
            fake_set_error("EZ1001: aclnnWeightQuantPreprocessGetWorkspaceSize: %s is nullptr",
                           names[i]);
            early = FAKE_PARAM_NULLPTR;
        }
    }
    if (early) {
        log_first_phase(&b, workspaceSize, executor);
        return early;
    }
    return first_phase_finish(&b, &WQP, outWeight, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnWeightQuantPreprocess(void *workspace, uint64_t workspaceSize,
                                              void *executor, aclrtStream stream) {
    return launch(&WQP, workspace, workspaceSize, executor, stream);
}

/* ---- elementwise operators that compute their results (hand-written op_api, ops-math) ---- */

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0) v = ldexpf((float)man, -24);                       /* zero and subnormals */
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexpf((float)(man | 0x400), (int)exp - 25);
    uint32_t bits;
    memcpy(&bits, &v, 4);
    bits |= sign;
    memcpy(&v, &bits, 4);
    return v;
}

/* float -> binary16, round to nearest even (overflow to infinity, NaN kept) */
static uint16_t float_to_half(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    float a = fabsf(f);
    if (isnan(f)) return sign | 0x7e00;
    if (a >= 65520.0f) return sign | 0x7c00;                         /* rounds past the largest */
    if (a < ldexpf(1.0f, -14)) {                                      /* subnormal: units of 2^-24 */
        float q = nearbyintf(ldexpf(a, 24));                          /* the current mode: nearest even */
        return sign | (uint16_t)q;
    }
    int e;
    float m = frexpf(a, &e);                                          /* a = m * 2^e, m in [0.5, 1) */
    float q = nearbyintf(ldexpf(m, 11));                              /* 11 significant bits */
    if (q >= 2048.0f) { q /= 2; e += 1; }
    return sign | (uint16_t)(((uint32_t)(e + 14) << 10) | ((uint32_t)q - 1024));
}

static float bf16_to_float(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float v;
    memcpy(&v, &bits, 4);
    return v;
}

static uint16_t float_to_bf16(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if (isnan(f)) return (uint16_t)((bits >> 16) | 0x40);
    bits += 0x7fff + ((bits >> 16) & 1);                              /* round to nearest even */
    return (uint16_t)(bits >> 16);
}

static double read_element(const void *base, int dtype, int64_t i) {
    switch (dtype) {
    case 0: return ((const float *)base)[i];
    case 1: return half_to_float(((const uint16_t *)base)[i]);
    case 2: return ((const int8_t *)base)[i];
    case 3: return ((const int32_t *)base)[i];
    case 4: return ((const uint8_t *)base)[i];
    case 6: return ((const int16_t *)base)[i];
    case 9: return (double)((const int64_t *)base)[i];
    case 11: return ((const double *)base)[i];
    case 12: return ((const unsigned char *)base)[i] ? 1.0 : 0.0;
    case 27: return bf16_to_float(((const uint16_t *)base)[i]);
    default: return NAN;
    }
}

static void write_element(void *base, int dtype, int64_t i, double v) {
    switch (dtype) {
    case 0: ((float *)base)[i] = (float)v; break;
    case 1: ((uint16_t *)base)[i] = float_to_half((float)v); break;
    case 2: ((int8_t *)base)[i] = (int8_t)v; break;
    case 3: ((int32_t *)base)[i] = (int32_t)v; break;
    case 4: ((uint8_t *)base)[i] = (uint8_t)v; break;
    case 6: ((int16_t *)base)[i] = (int16_t)v; break;
    case 9: ((int64_t *)base)[i] = (int64_t)v; break;
    case 11: ((double *)base)[i] = v; break;
    case 12: ((unsigned char *)base)[i] = v != 0; break;
    case 27: ((uint16_t *)base)[i] = float_to_bf16((float)v); break;
    default: break;
    }
}

/* the value an aclScalar holds, as a double */
static double scalar_value(const FakeScalar *sc) { return read_element(sc->bytes, sc->dtype, 0); }

/* a value held in a tensor's dtype (the host code casts a scalar to the computation's dtype) */
static double held_in(int dtype, double v) {
    unsigned char cell[16];
    write_element(cell, dtype, 0, v);
    return read_element(cell, dtype, 0);
}

/* the storage index of an output element's operand: its view broadcast to the output's dims */
static int64_t operand_index(const FakeTensor *t, const FakeTensor *out, const int64_t *idx) {
    int64_t at = t->offset, stride = 1;
    uint64_t lead = out->view_num - t->view_num;
    for (uint64_t d = t->view_num; d-- > 0;) {
        int64_t size = t->view[d];
        int64_t s = t->has_strides ? t->strides[d] : stride;
        if (size != 1) at += idx[d + lead] * s;
        stride *= size;
    }
    return at;
}

enum { KERNEL_ADD, KERNEL_POW, KERNEL_LT };

static void elementwise(const FakeExecutor *e, int kind) {
    const FakeTensor *out = e->out, *a = e->a, *b = e->b;
    int64_t numel = 1, idx[16] = {0};
    for (uint64_t d = 0; d < out->view_num; ++d) numel *= out->view[d];
    int narrow = a->dtype == 0 || a->dtype == 1 || a->dtype == 27;   /* computed in float32 */
    double scalar = e->scalar;
    if (kind == KERNEL_LT && (narrow || a->dtype == 11))
        scalar = held_in(a->dtype, scalar);          /* compared in the floating tensor's dtype */
    else if (narrow)
        scalar = (float)scalar;                      /* ToFloat */
    for (int64_t n = 0; n < numel; ++n) {
        int64_t rest = n;
        for (uint64_t d = out->view_num; d-- > 0;) {
            idx[d] = rest % out->view[d];
            rest /= out->view[d];
        }
        double x = read_element(a->data, a->dtype, operand_index(a, out, idx)), r;
        if (kind == KERNEL_ADD) {
            double y = read_element(b->data, b->dtype, operand_index(b, out, idx));
            if (narrow) r = (float)x + (float)((float)scalar * (float)y);
            else r = x + scalar * y;
        } else if (kind == KERNEL_POW) {
            r = narrow ? (float)pow(x, scalar) : pow(x, scalar);
        } else {
            r = x < scalar ? 1.0 : 0.0;
        }
        write_element(out->data, out->dtype, operand_index(out, out, idx), r);
    }
}

static void add_kernel(const FakeExecutor *e) { elementwise(e, KERNEL_ADD); }
static void pow_kernel(const FakeExecutor *e) { elementwise(e, KERNEL_POW); }
static void lt_kernel(const FakeExecutor *e) { elementwise(e, KERNEL_LT); }

/* the call logged, the operands' NULL checks (161001), then the executor with its kernel */
static aclnnStatus elementwise_first_phase(const OpBehaviour *op, const FakeTensor *self,
                                           const FakeTensor *other, const char *scalar_name,
                                           const FakeScalar *scalar, FakeTensor *out,
                                           void (*kernel)(const FakeExecutor *),
                                           uint64_t *workspaceSize, void **executor) {
    int binary = kernel == add_kernel;
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"%sGetWorkspaceSize\",\"tensors\":{", op->api);
    buf_tensor(&b, "self", self, 1);
    if (binary) buf_tensor(&b, "other", other, 0);
    buf_tensor(&b, "out", out, 0);
    buf_printf(&b, "}");
    buf_scalar(&b, scalar_name, scalar);
    if (!self || !scalar || !out || (binary && !other)) {
        log_first_phase(&b, workspaceSize, executor);
        fake_set_error("EZ1001: %sGetWorkspaceSize: a mandatory argument is nullptr", op->api);
        return FAKE_PARAM_NULLPTR;
    }
    aclnnStatus status = first_phase_finish(&b, op, out, workspaceSize, executor);
    if (status == 0) {
        FakeExecutor *e = *executor;
        e->kernel = kernel;
        e->a = self;
        e->b = other;
        e->scalar = scalar_value(scalar);
    }
    return status;
}

static const OpBehaviour ADD = {"aclnnAdd", FAKE_PARAM_NULLPTR, 0, 1};
static const OpBehaviour POW = {"aclnnPowTensorScalar", FAKE_PARAM_NULLPTR, 0, 1};
static const OpBehaviour LT = {"aclnnLtScalar", FAKE_PARAM_NULLPTR, 0, 1};

EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const FakeTensor *self, const FakeTensor *other,
                                            const FakeScalar *alpha, FakeTensor *out,
                                            uint64_t *workspaceSize, void **executor) {
    return elementwise_first_phase(&ADD, self, other, "alpha", alpha, out, add_kernel,
                                   workspaceSize, executor);
}

EXPORT aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, void *executor,
                            aclrtStream stream) {
    return launch(&ADD, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const FakeTensor *self,
                                                        const FakeScalar *exponent, FakeTensor *out,
                                                        uint64_t *workspaceSize, void **executor) {
    return elementwise_first_phase(&POW, self, NULL, "exponent", exponent, out, pow_kernel,
                                   workspaceSize, executor);
}

EXPORT aclnnStatus aclnnPowTensorScalar(void *workspace, uint64_t workspaceSize, void *executor,
                                        aclrtStream stream) {
    return launch(&POW, workspace, workspaceSize, executor, stream);
}

EXPORT aclnnStatus aclnnLtScalarGetWorkspaceSize(const FakeTensor *self, const FakeScalar *other,
                                                 FakeTensor *out, uint64_t *workspaceSize,
                                                 void **executor) {
    return elementwise_first_phase(&LT, self, NULL, "other", other, out, lt_kernel, workspaceSize,
                                   executor);
}

EXPORT aclnnStatus aclnnLtScalar(void *workspace, uint64_t workspaceSize, void *executor,
                                 aclrtStream stream) {
    return launch(&LT, workspace, workspaceSize, executor, stream);
}

#endif /* FAKE_WQP */

#ifdef FAKE_QMM

/* hand-written op_api (ops-nn): NULL out-pointers and mandatory tensors 161001 */
static const OpBehaviour QMM = {"aclnnQuantMatmulWeightNz", FAKE_PARAM_NULLPTR, 0, 1};

EXPORT aclnnStatus aclnnQuantMatmulWeightNzGetWorkspaceSize(
    const FakeTensor *x1, const FakeTensor *x2, const FakeTensor *x1Scale, const FakeTensor *x2Scale,
    const FakeTensor *yScale, const FakeTensor *x1Offset, const FakeTensor *x2Offset,
    const FakeTensor *yOffset, const FakeTensor *bias, bool transposeX1, bool transposeX2,
    int64_t groupSize, FakeTensor *out, uint64_t *workspaceSize, void **executor) {
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"aclnnQuantMatmulWeightNzGetWorkspaceSize\",\"tensors\":{");
    buf_tensor(&b, "x1", x1, 1);
    buf_tensor(&b, "x2", x2, 0);
    buf_tensor(&b, "x1Scale", x1Scale, 0);
    buf_tensor(&b, "x2Scale", x2Scale, 0);
    buf_tensor(&b, "yScale", yScale, 0);
    buf_tensor(&b, "x1Offset", x1Offset, 0);
    buf_tensor(&b, "x2Offset", x2Offset, 0);
    buf_tensor(&b, "yOffset", yOffset, 0);
    buf_tensor(&b, "bias", bias, 0);
    buf_tensor(&b, "out", out, 0);
    buf_printf(&b, "},\"transposeX1\":%s,\"transposeX2\":%s,\"groupSize\":%lld",
               transposeX1 ? "true" : "false", transposeX2 ? "true" : "false", (long long)groupSize);
    if (!workspaceSize || !executor)
        return first_phase_finish(&b, &QMM, out, workspaceSize, executor);
    const FakeTensor *mandatory[] = {x1, x2, x2Scale, out};
    const char *names[] = {"x1", "x2", "x2Scale", "out"};
    for (int i = 0; i < 4; ++i) {
        if (!mandatory[i]) {
            fake_set_error("EZ1001: aclnnQuantMatmulWeightNzGetWorkspaceSize: %s is nullptr", names[i]);
            log_first_phase(&b, workspaceSize, executor);
            return FAKE_PARAM_NULLPTR;
        }
    }
    return first_phase_finish(&b, &QMM, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnQuantMatmulWeightNz(void *workspace, uint64_t workspaceSize,
                                            void *executor, aclrtStream stream) {
    return launch(&QMM, workspace, workspaceSize, executor, stream);
}


/* An API with a parameter of every kind a documented prototype uses (aclTensor*, aclScalar*,
 * aclIntArray*, aclBoolArray*, aclFloatArray*, double, float, int64_t, bool, char*, aclDataType):
 * what the backend passes for a signature generated from a spec's parameter rows. */
static const OpBehaviour KINDS = {"aclnnFakeKinds", FAKE_PARAM_NULLPTR, 1, 0};

static void buf_array(Buf *b, const char *name, const FakeArray *a, char kind) {
    buf_printf(b, ",\"%s\":", name);
    if (!a) { buf_printf(b, "null"); return; }
    if (a->magic != ARRAY_MAGIC || a->kind != kind) { buf_printf(b, "\"invalid\""); return; }
    buf_printf(b, "[");
    for (uint64_t i = 0; i < a->size; ++i) {
        if (i) buf_printf(b, ",");
        if (kind == 'i') buf_printf(b, "%lld", (long long)((const int64_t *)a->values)[i]);
        else if (kind == 'b') buf_printf(b, "%s", ((const _Bool *)a->values)[i] ? "true" : "false");
        else buf_double(b, (double)((const float *)a->values)[i]);
    }
    buf_printf(b, "]");
}

EXPORT aclnnStatus aclnnFakeKindsGetWorkspaceSize(
    const FakeTensor *self, const FakeScalar *alpha, const FakeArray *dims, const FakeArray *mask,
    const FakeArray *weights, double scale, float bias, int64_t axis, _Bool keepdim,
    const char *mode, int dtype, FakeTensor *out, uint64_t *workspaceSize, void **executor) {
    Buf b = {0};
    buf_printf(&b, "{\"ev\":\"aclnnFakeKindsGetWorkspaceSize\",\"tensors\":{");
    buf_tensor(&b, "self", self, 1);
    buf_tensor(&b, "out", out, 0);
    buf_printf(&b, "}");
    buf_scalar(&b, "alpha", alpha);
    buf_array(&b, "dims", dims, 'i');
    buf_array(&b, "mask", mask, 'b');
    buf_array(&b, "weights", weights, 'f');
    buf_printf(&b, ",\"scale\":");
    buf_double(&b, scale);
    buf_printf(&b, ",\"bias\":");
    buf_double(&b, (double)bias);
    buf_printf(&b, ",\"axis\":%lld,\"keepdim\":%s,\"dtype\":%d,\"mode\":", (long long)axis,
               keepdim ? "true" : "false", dtype);
    if (mode) buf_printf(&b, "\"%s\"", mode);
    else buf_printf(&b, "null");
    return first_phase_finish(&b, &KINDS, out, workspaceSize, executor);
}

EXPORT aclnnStatus aclnnFakeKinds(void *workspace, uint64_t workspaceSize, void *executor,
                                  aclrtStream stream) {
    return launch(&KINDS, workspace, workspaceSize, executor, stream);
}

#endif /* FAKE_QMM */
