// Package shapes is a small program with partial coverage for the report tests.
package shapes

// Classify names a triangle by its sides.
func Classify(a, b, c int) string {
	if a <= 0 || b <= 0 || c <= 0 {
		return "invalid"
	}
	if a == b && b == c {
		return "equilateral"
	}
	if a == b || b == c || a == c {
		return "isosceles"
	}
	return "scalene"
}

// Area is never called by the tests.
func Area(w, h int) int {
	if w < 0 {
		w = -w
	}
	return w * h
}

// Sum adds the numbers; the loop body runs, the empty case does not.
func Sum(xs []int) int {
	if len(xs) == 0 { return 0 }
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
