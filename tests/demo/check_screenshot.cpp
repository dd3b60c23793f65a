// check_screenshot PATH: passes (exit 0) when a tilesort-demo --screenshot
// image shows the overlay panel and the particles, not an empty or black
// frame. Exit 1 names what is missing.
//   panel:     in the panel's text block (top left; the panel sits at 10,10),
//              light grey text pixels on the dark panel, a few percent of the area;
//   particles: in the middle right of the window (where the clusters are and
//              the panel is not), enough saturated pixels (the background is a
//              dark, nearly grey gradient; particle colours are saturated).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<std::uint8_t> rgb;
  const std::uint8_t* at(int x, int y) const { return &rgb[(std::size_t(y) * w + x) * 3]; }
};

bool read_ppm(const char* path, Image* im) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  int maxval = 0;
  const bool header = std::fscanf(f, "P6 %d %d %d", &im->w, &im->h, &maxval) == 3 && maxval == 255 &&
                      im->w > 0 && im->h > 0 && std::fgetc(f) != EOF;
  if (header) {
    im->rgb.resize(std::size_t(im->w) * im->h * 3);
    const bool ok = std::fread(im->rgb.data(), 1, im->rgb.size(), f) == im->rgb.size();
    std::fclose(f);
    return ok;
  }
  std::fclose(f);
  return false;
}

struct Region {
  double text = 0, saturated = 0, luma_sd = 0;
};

Region measure(const Image& im, int x0, int y0, int x1, int y1) {
  Region r;
  double n = 0, sum = 0, sum2 = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const std::uint8_t* p = im.at(x, y);
      const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
      const double luma = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
      if (luma > 150 && hi - lo < 40) r.text += 1;  // ImGui's text is light grey
      if (hi - lo > 60 && hi > 80) r.saturated += 1;
      sum += luma;
      sum2 += luma * luma;
      n += 1;
    }
  r.text /= n;
  r.saturated /= n;
  r.luma_sd = std::sqrt(std::max(0.0, sum2 / n - (sum / n) * (sum / n)));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: check_screenshot IMAGE.ppm\n");
    return 64;
  }
  Image im;
  if (!read_ppm(argv[1], &im)) {
    std::printf("FAILED: cannot read %s as a binary PPM\n", argv[1]);
    return 1;
  }
  if (im.w < 640 || im.h < 360) {
    std::printf("FAILED: %dx%d is smaller than the window the test opens\n", im.w, im.h);
    return 1;
  }
  const Region panel = measure(im, 14, 30, 300, 200);
  const Region scene = measure(im, int(im.w * 0.45), int(im.h * 0.1), int(im.w * 0.85), int(im.h * 0.9));
  const Region all = measure(im, 0, 0, im.w, im.h);
  std::printf("screenshot %dx%d: panel text %.2f%% (luma sd %.1f), particles %.2f%% saturated, frame luma sd %.1f\n",
              im.w, im.h, 100 * panel.text, panel.luma_sd, 100 * scene.saturated, all.luma_sd);
  bool ok = true;
  if (all.luma_sd < 8) {
    std::printf("FAILED: the frame is (nearly) uniform: empty or black\n");
    ok = false;
  }
  if (panel.text < 0.01 || panel.text > 0.5 || panel.luma_sd < 20) {
    std::printf("FAILED: no overlay text in the panel region (want 1%%..50%% light grey pixels, luma sd >= 20)\n");
    ok = false;
  }
  if (scene.saturated < 0.05) {
    std::printf("FAILED: too few particle pixels in the scene region (want >= 5%% saturated)\n");
    ok = false;
  }
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
