// nothing CUDA here: cuda_like names, a cu and a cudaless word
int cudax = 0; int cu = 1; int cublas_ = 2;
