#include <stdio.h>
#include "shapes.h"

int main(int argc, char **argv)
{
    printf("%s\n", classify(2, 2, 2));
    printf("%s\n", classify(3, 4, 5));
    if (argc > 5) {
        printf("%d\n", area(2, 3));
    }
    printf("%d\n", twice(argc));
    return 0;
}
