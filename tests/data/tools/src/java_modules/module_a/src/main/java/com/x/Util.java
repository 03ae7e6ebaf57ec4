package com.x;

public class Util {
    public static String sign(int n) {
        if (n < 0) {
            return "negative";
        }
        return n == 0 ? "zero" : "positive";
    }

    public static int twice(int n) {
        return 2 * n;
    }

    public static void main(String[] args) {
        System.out.println(sign(3));
        System.out.println(sign(7));
    }
}
