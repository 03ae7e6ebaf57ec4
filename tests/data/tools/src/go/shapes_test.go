package shapes

import "testing"

func TestClassify(t *testing.T) {
	if Classify(2, 2, 2) != "equilateral" {
		t.Fatal("equilateral")
	}
	if Classify(3, 4, 5) != "scalene" {
		t.Fatal("scalene")
	}
	if Sum([]int{1, 2}) != 3 {
		t.Fatal("sum")
	}
}
