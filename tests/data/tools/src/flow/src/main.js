// @flow
import { classify, area } from './shapes';

const sides: any = [3, 4, 5];
console.log(classify(sides[0], sides[1], sides[2]));
console.log(area({
  width: 2,
  height: 3,
  check() {},
}));
