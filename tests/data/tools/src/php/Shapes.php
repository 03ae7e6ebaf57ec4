<?php
// A small program with partial coverage for the report tests.
class Shapes
{
    public static function classify(int $a, int $b, int $c): string
    {
        if ($a <= 0 || $b <= 0 || $c <= 0) {
            return "invalid";
        }
        if ($a == $b && $b == $c) {
            return "equilateral";
        }
        if ($a == $b || $b == $c || $a == $c) {
            return "isosceles";
        }
        return "scalene";
    }

    public static function area(int $w, int $h): int
    {
        if ($w < 0) {
            $w = -$w;
        }
        return $w * $h;
    }
}
