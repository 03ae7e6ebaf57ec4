package com.x;

import java.util.List;

public final class Util {
    private Util() {
    }

    public static int sum(List<Integer> values) {
        int total = 0;
        for (int value : values) {
            total += value;
        }
        return total;
    }

    public static int largest(List<Integer> values) {
        int best = Integer.MIN_VALUE;
        for (int value : values) {
            best = Math.max(best, value);
        }
        return best;
    }

    public static void main(String[] args) {
        System.out.println(sum(List.of(1, 2, 3)));
    }
}
