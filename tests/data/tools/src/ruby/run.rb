require "simplecov"
begin
  require "simplecov_json_formatter"
rescue LoadError
  nil
end
SimpleCov.start do
  command_name "Unit Tests"
  enable_coverage :branch
  root File.expand_path(__dir__)
  coverage_dir File.join(__dir__, "coverage")
  formatter SimpleCov::Formatter::JSONFormatter if defined?(SimpleCov::Formatter::JSONFormatter)
end
require_relative "shapes"
puts Shapes.classify(2, 2, 2)
puts Shapes.classify(3, 4, 5)
