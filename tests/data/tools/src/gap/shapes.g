Classify := function(a, b, c)
    if a = b and b = c then
        return "equilateral";
    fi;
    if a = b or b = c or a = c then
        return "isosceles";
    fi;
    return "scalene";
end;

Area := function(w, h)
    return w * h / 2;
end;
