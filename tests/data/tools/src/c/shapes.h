const char *classify(int a, int b, int c);
int area(int w, int h);
static inline int twice(int x) { return x > 0 ? 2 * x : 0; }
