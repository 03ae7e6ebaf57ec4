// @flow

export function classify(a: number, b: number, c: number): string {
  if (a === b && b === c) {
    return 'equilateral';
  }
  return 'scalene';
}

export function area(shape: any): number {
  shape.check();
  return shape.width * shape.height / 2;
}
