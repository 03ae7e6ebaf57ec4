import std.stdio : writeln;
import shapes : classify;

void main()
{
    writeln(classify(2, 2, 2));
    writeln(classify(3, 4, 5));
}
