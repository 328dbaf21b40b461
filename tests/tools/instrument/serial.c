/* A program without MPI for `waitscope instrument --nompi`: main calls middle 4 times, each
 * calling leaf 10 times. */
#include <stdio.h>

static double leaf(int i) {
    return i * 0.5;
}

static double middle(int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += leaf(i);
    return s;
}

int main(void) {
    double s = 0;
    for (int k = 0; k < 4; ++k)
        s += middle(10);
    printf("serial: %.1f\n", s);
    return 0;
}
