/* destor.c: command-line entry point (being written). */
#include <stdio.h>
int main(void) { fputs("destor: not built yet\n", stderr); return 1; }
