// Chapter 4 demo: smooth a noisy signal with your moving_average_shared at a few window
// sizes and plot the results. Run it with `make chapter4 run`, then open
// build/chapter4-moving-average.svg in a browser.
#include "moving_average.h"
#include "tutorial_chapter.h"

#include "compare.h"
#include "demo.h"
#include "device_buffer.h"
#include "image_file.h"
#include "random.h"
#include "moving_average_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSamples = 1200;
constexpr double kPi = 3.14159265358979323846;

// A slow wave with two steps in it, buried in uniform noise.
std::vector<float> noisy_signal() {
    const std::vector<float> noise = tutorial::random_floats(kSamples, tutorial::run_seed(), -0.6f, 0.6f);
    std::vector<float> signal(kSamples);
    for (int t = 0; t < kSamples; ++t) {
        const double step = (t >= 500 && t < 800) ? 0.8 : 0.0;
        signal[t] = static_cast<float>(std::sin(2 * kPi * t / 400.0) + step + noise[t]);
    }
    return signal;
}

struct Series {
    std::string label;
    std::string colour;
    double width;    // stroke width in pixels
    int offset;      // the sample index of the first value
    std::vector<float> values;
};

// An SVG line chart of the series over samples 0 .. kSamples - 1.
std::string plot(const std::vector<Series>& series) {
    const double width = 960, height = 480, left = 60, right = 20, top = 50, bottom = 50;
    const double y_min = -2.0, y_max = 3.0;
    auto sx = [&](double t) { return left + (width - left - right) * t / (kSamples - 1); };
    auto sy = [&](double v) { return top + (height - top - bottom) * (y_max - v) / (y_max - y_min); };
    std::ostringstream svg;
    svg.precision(5);
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << left << "\" y=\"28\" font-size=\"17\">Moving averages of a noisy signal "
        << "(each value drawn at the centre of its window)</text>\n";
    for (double v = y_min; v <= y_max; v += 0.5) {  // horizontal grid and value labels
        svg << "<line x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\"" << sy(v) << "\" y2=\"" << sy(v)
            << "\" stroke=\"" << (v == 0 ? "#999" : "#e4e4e4") << "\"/>\n"
            << "<text x=\"" << left - 8 << "\" y=\"" << sy(v) + 4 << "\" text-anchor=\"end\">" << v << "</text>\n";
    }
    for (int t = 0; t < kSamples; t += 200) {  // sample labels
        svg << "<text x=\"" << sx(t) << "\" y=\"" << height - bottom + 20 << "\" text-anchor=\"middle\">" << t
            << "</text>\n";
    }
    svg << "<text x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 10
        << "\" text-anchor=\"middle\">sample</text>\n";
    for (std::size_t s = 0; s < series.size(); ++s) {
        const Series& line = series[s];
        svg << "<polyline fill=\"none\" stroke=\"" << line.colour << "\" stroke-width=\"" << line.width
            << "\" stroke-linejoin=\"round\" points=\"";
        for (std::size_t i = 0; i < line.values.size(); ++i) {
            svg << sx(line.offset + static_cast<double>(i)) << "," << sy(line.values[i]) << " ";
        }
        svg << "\"/>\n";
        const double ly = top + 14 + 20 * static_cast<double>(s);  // legend, top right
        svg << "<line x1=\"" << width - right - 210 << "\" x2=\"" << width - right - 180 << "\" y1=\"" << ly
            << "\" y2=\"" << ly << "\" stroke=\"" << line.colour << "\" stroke-width=\"3\"/>\n"
            << "<text x=\"" << width - right - 172 << "\" y=\"" << ly + 4 << "\">" << line.label << "</text>\n";
    }
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace

int main() {
    return tutorial::run_demo([] {
        const std::vector<float> signal = noisy_signal();
        const tutorial::DeviceBuffer<float> device_signal(signal);
        std::vector<Series> series{{"signal (1200 samples)", "#b8b8b8", 1.0, 0, signal}};
        const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c"};
        bool all_right = true;
        int c = 0;
        for (int window : {9, 41, 301}) {
            const int outputs = kSamples - window + 1;
            tutorial::DeviceBuffer<float> device_average(outputs);
            device_average.poison();
            moving_average_shared(device_signal.data(), device_average.data(), kSamples, window);
            const std::vector<float> average = device_average.download();

            tutorial::OutputLayout layout;
            layout.cols = outputs;
            layout.seed = tutorial::run_seed();
            const bool right = tutorial::compare_with_tolerance(average, tutorial::moving_average_reference(signal, window),
                                                                layout)
                                   .ok();
            all_right &= right;
            std::printf("window %3d: %4d outputs, %zu bytes of shared memory per block: %s\n", window, outputs,
                        moving_average_shared_bytes(window),
                        right ? "equals the CPU reference" : "WRONG: run `make " CHAPTER_NAME " test`");
            // Output i averages samples i .. i + window - 1: draw it at their centre.
            series.push_back({"window " + std::to_string(window), colours[c++], 2.0, (window - 1) / 2, average});
        }
        std::filesystem::create_directories("build");
        const std::string path = "build/" CHAPTER_NAME "-moving-average.svg";
        tutorial::write_file(path, plot(series));
        std::printf("wrote %s: open it in a browser.\n", path.c_str());
        return all_right;
    });
}
