/* A 1-D halo exchange: the functions the instrumentation tests expect in the call tree. */
#ifndef HALO_H
#define HALO_H
double compute_interior(int cells);
void exchange_halo(int rank, int size, double* left, double* right);
double check_residual(double local);
#endif
