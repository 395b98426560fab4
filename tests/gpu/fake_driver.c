/* A stand-in for the NVIDIA driver (libcuda.so.1) on a machine without a GPU.
 *
 * numba-cuda, cuda-core and cuda-bindings run unchanged above it: cuda-bindings finds this
 * library as it finds the real one (dlopen "libcuda.so.1", then cuGetProcAddress_v2 for every
 * entry point).  It offers one device of compute capability 9.0; device memory is host memory
 * (allocations, copies and memsets work, so arrays go to the "device" and back); modules and
 * kernels are opaque handles; a kernel launch runs nothing and records what it was given, for
 * the tests to read through ctypes: the function, the grid and block, the stream, and the
 * bytes behind each parameter pointer (fake_param_sizes says how many bytes each has).
 * Entry points not written here succeed and touch nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

#define MAX_PARAMS 1024
#define PARAM_BYTES 8

static int context_storage;
static void *current_context = NULL;
static int handle_storage[4096];
static int next_handle = 0;

/* what the launches received */
long long fake_launches = 0;
void *fake_last_function = NULL;
unsigned fake_last_grid[3], fake_last_block[3], fake_last_shared = 0;
void *fake_last_stream = (void *)-1;
int fake_param_count = 0;                     /* set by the reader before a launch */
int fake_param_sizes[MAX_PARAMS];             /* bytes of each parameter, set likewise */
unsigned char fake_last_params[MAX_PARAMS][PARAM_BYTES];

static void *new_handle(void) { return &handle_storage[next_handle++ % 4096]; }

CUresult fake_success(void) { return 0; }
CUresult cuInit(unsigned int flags) { return 0; }
CUresult cuDriverGetVersion(int *version) { *version = 13000; return 0; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return 0; }
CUresult cuDeviceGet(CUdevice *device, int ordinal) { *device = ordinal; return 0; }
CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  snprintf(name, length, "Fake GPU (tests/gpu/fake_driver.c)");
  return 0;
}
CUresult cuDeviceGetUuid(unsigned char *uuid, CUdevice device) { memset(uuid, 0, 16); return 0; }
CUresult cuDeviceGetUuid_v2(unsigned char *uuid, CUdevice device) { memset(uuid, 0, 16); return 0; }
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  switch (attribute) {
    case 1: case 2: case 3: *value = 1024; break;     /* threads and block dimensions */
    case 4: *value = 2147483647; break;                /* grid x */
    case 5: case 6: *value = 65535; break;             /* grid y, z */
    case 10: *value = 32; break;                       /* warp size */
    case 16: *value = 132; break;                      /* multiprocessors */
    case 75: *value = 9; break;                        /* compute capability */
    case 76: *value = 0; break;
    default: *value = 1; break;
  }
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) { *bytes = (size_t)80 << 30; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **context, CUdevice device) {
  *context = &context_storage;
  return 0;
}
CUresult cuCtxGetCurrent(void **context) { *context = current_context; return 0; }
CUresult cuCtxSetCurrent(void *context) { current_context = context; return 0; }
CUresult cuCtxPushCurrent_v2(void *context) { current_context = context; return 0; }
CUresult cuCtxPopCurrent_v2(void **context) {
  if (context) *context = current_context;
  return 0;
}
CUresult cuCtxGetDevice(CUdevice *device) { *device = 0; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  *pointer = (CUdeviceptr)(uintptr_t)calloc(1, bytes ? bytes : 1);
  return *pointer ? 0 : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
CUresult cuMemFree_v2(CUdeviceptr pointer) { free((void *)(uintptr_t)pointer); return 0; }
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  *free_bytes = (size_t)70 << 30;
  *total = (size_t)80 << 30;
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t bytes) {
  memcpy((void *)(uintptr_t)to, from, bytes);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t bytes) {
  memcpy(to, (void *)(uintptr_t)from, bytes);
  return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes) {
  memmove((void *)(uintptr_t)to, (void *)(uintptr_t)from, bytes);
  return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void *from, size_t bytes, void *stream) {
  return cuMemcpyHtoD_v2(to, from, bytes);
}
CUresult cuMemcpyDtoHAsync_v2(void *to, CUdeviceptr from, size_t bytes, void *stream) {
  return cuMemcpyDtoH_v2(to, from, bytes);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes, void *stream) {
  return cuMemcpyDtoD_v2(to, from, bytes);
}
CUresult cuMemsetD8_v2(CUdeviceptr to, unsigned char value, size_t count) {
  memset((void *)(uintptr_t)to, value, count);
  return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr to, unsigned char value, size_t count, void *stream) {
  return cuMemsetD8_v2(to, value, count);
}
CUresult cuLibraryLoadData(void **library, const void *code, void *options, void *values,
                           unsigned count, void *library_options, void *library_values,
                           unsigned library_count) {
  *library = new_handle();
  return 0;
}
CUresult cuLibraryGetKernel(void **kernel, void *library, const char *name) {
  *kernel = new_handle();
  return 0;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count, void *options,
                            void **values) {
  *module = new_handle();
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  *function = new_handle();
  return 0;
}

static void record(void *function, const unsigned *grid, const unsigned *block, unsigned shared,
                   void *stream, void **params) {
  fake_launches++;
  fake_last_function = function;
  memcpy(fake_last_grid, grid, sizeof fake_last_grid);
  memcpy(fake_last_block, block, sizeof fake_last_block);
  fake_last_shared = shared;
  fake_last_stream = stream;
  memset(fake_last_params, 0, sizeof fake_last_params);
  for (int i = 0; i < fake_param_count && i < MAX_PARAMS; i++) {
    int size = fake_param_sizes[i] > PARAM_BYTES ? PARAM_BYTES : fake_param_sizes[i];
    memcpy(fake_last_params[i], params[i], size);
  }
}

typedef struct {
  unsigned grid[3], block[3], shared;
  void *stream;
  void *attributes;
  unsigned attribute_count;
} CUlaunchConfig;

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, void *function, void **params,
                          void **extra) {
  record(function, config->grid, config->block, config->shared, config->stream, params);
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                        void **extra) {
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  record(function, grid, block, shared, stream, params);
  return 0;
}

CUresult cuGetErrorString(int error, const char **text) { *text = "fake driver error"; return 0; }
CUresult cuGetErrorName(int error, const char **text) { *text = "FAKE_DRIVER_ERROR"; return 0; }

/* Every entry point by name: the _v2 form where one is written here and the caller asks for
 * CUDA 3.2 or later (as the real driver versions them), else the plain name, else success. */
CUresult cuGetProcAddress_v2(const char *symbol, void **function, int version,
                             unsigned long long flags, int *status) {
  static void *self = NULL;
  char name[256];
  void *found = NULL;
  if (!self) {
    Dl_info info;
    dladdr((void *)cuInit, &info);
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  }
  snprintf(name, sizeof name, "%s_v2", symbol);
  if (version >= 3020) found = dlsym(self, name);
  if (!found) found = dlsym(self, symbol);
  *function = found ? found : (void *)fake_success;
  if (status) *status = 0;
  return 0;
}
CUresult cuGetProcAddress(const char *symbol, void **function, int version,
                          unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, function, version, flags, NULL);
}
