/* A program without MPI that forks: the child runs instrumented functions and exits; only the
 * parent's functions belong in the experiment. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

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
    double s = middle(10) + middle(10);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        double c = 0;
        for (int k = 0; k < 100000; ++k)
            c += middle(10);
        printf("child: %.1f\n", c);
        exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    s += middle(10) + middle(10);
    printf("parent: %.1f\n", s);
    return 0;
}
