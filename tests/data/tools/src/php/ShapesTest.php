<?php
use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/Shapes.php';

final class ShapesTest extends TestCase
{
    public function testClassify(): void
    {
        $this->assertSame("equilateral", Shapes::classify(2, 2, 2));
        $this->assertSame("scalene", Shapes::classify(3, 4, 5));
    }
}
