package com.example.shapes;

/** A small program with partial coverage for the report tests. */
public class Shapes {
    public static String classify(int a, int b, int c) {
        if (a <= 0 || b <= 0 || c <= 0) {
            return "invalid";
        }
        if (a == b && b == c) {
            return "equilateral";
        }
        if (a == b || b == c || a == c) {
            return "isosceles";
        }
        return "scalene";
    }

    public static int area(int w, int h) {
        if (w < 0) {
            w = -w;
        }
        return w * h;
    }

    public static void main(String[] args) {
        System.out.println(classify(2, 2, 2));
        System.out.println(classify(3, 4, 5));
    }
}
