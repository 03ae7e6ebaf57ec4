-- Shapes: a small module with partial coverage (a branch not taken, a function never called).
local shapes = {}

function shapes.classify(sides)
  if sides == 3 then
    return "triangle"
  elseif sides == 4 then
    return "square"
  else
    return "polygon"
  end
end

function shapes.area(width, height)
  local area = width * height
  if area < 0 then
    error("negative area")
  end
  return area
end

function shapes.perimeter(sides, length)
  return sides * length
end

local weights = {
  10,
  20
}

function shapes.weight(n)
  return weights[n] or 0
end

return shapes
