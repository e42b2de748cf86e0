#include <cuda_runtime.h>
__global__ void add(float* x) { x[threadIdx.x] += 1; }
void run(float* x, cudaStream_t s) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  add<<<1, 32, 0, s>>>(x);
  cudaStreamSynchronize(s);
}
