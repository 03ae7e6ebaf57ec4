/* A small program with partial coverage for the report tests. */
#include <stdio.h>
#include "shapes.h"

const char *classify(int a, int b, int c)
{
    if (a <= 0 || b <= 0 || c <= 0)
        return "invalid";
    if (a == b && b == c)
        return "equilateral";
    if (a == b || b == c || a == c)
        return "isosceles";
    return "scalene";
}

int area(int w, int h)
{
    if (w < 0)
        w = -w;
    return w * h;
}
