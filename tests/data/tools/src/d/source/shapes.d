module shapes;

string classify(int a, int b, int c)
{
    if (a == b && b == c)
        return "equilateral";
    if (a == b || b == c || a == c)
        return "isosceles";
    return "scalene";
}

double area(double w, double h)
{
    return w * h / 2;
}
