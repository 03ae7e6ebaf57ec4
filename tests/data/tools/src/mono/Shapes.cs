using System;

public static class Shapes
{
    public static string Classify(int a, int b, int c)
    {
        if (a == b && b == c)
        {
            return "equilateral";
        }
        if (a == b || b == c || a == c)
        {
            return "isosceles";
        }
        return "scalene";
    }

    public static double Area(double w, double h)
    {
        return w * h / 2;
    }

    public static void Main()
    {
        Console.WriteLine(Classify(2, 2, 2));
        Console.WriteLine(Classify(3, 4, 5));
    }
}
