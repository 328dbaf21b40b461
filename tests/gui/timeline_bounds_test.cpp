// The timeline view's bounded work per frame, in-process and offscreen: a window holding more
// visits or wait states than four per pixel column is drawn from the overview, a narrower one
// from the events, and a critical path of far more stretches than pixels is drawn sampled.
#include "image_pixels.h"
#include "test_application.h"
#include "timeline_view.h"

#include <QImage>
#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::gui;
using namespace waitscope::gui::test;

namespace {

constexpr uint32_t kVisits = 100000; // per row, 10 µs apart
constexpr double kStep = 1e-5;

// Two ranks alternating computation and receives; `instances` Late Senders on rank 1 and a
// critical path that changes rank every `pathStep` visits.
timeline::Timeline generated(uint32_t visits, uint32_t instances, uint32_t pathStep) {
    timeline::Timeline t;
    const uint32_t compute = t.addRegion("compute", timeline::RegionKind::Computation);
    const uint32_t receive = t.addRegion("MPI_Recv", timeline::RegionKind::PointToPoint);
    for (uint32_t rank = 0; rank < 2; ++rank) {
        timeline::Row row{rank, 0, "rank " + std::to_string(rank), {}, {}};
        row.depths.resize(1);
        for (uint32_t k = 0; k < visits; ++k)
            row.depths[0].push_back({k * kStep, k * kStep + kStep / 2, k % 2 ? receive : compute});
        t.addRow(std::move(row));
    }
    t.setRange(0.0, kVisits * kStep);
    std::vector<analysis::PatternInstance> waits;
    for (uint32_t k = 0; k < instances; ++k) {
        const double at = (kVisits * kStep) * k / instances;
        waits.push_back({analysis::Metric::MpiLateSender, 0, 1, at, at + kStep / 4, kStep / 8});
    }
    t.setInstances(waits);
    std::vector<analysis::PathSegment> path;
    for (uint32_t k = 0; k + pathStep <= kVisits; k += pathStep)
        path.push_back({(k / pathStep) % 2, k * kStep, (k + pathStep) * kStep, 0, 0});
    t.setCriticalPath(std::move(path));
    return t;
}

} // namespace

TEST_CASE("a window with more visits than four per pixel is drawn from the overview",
          "[widgets][timeline]") {
    application();
    TimelineView view(generated(kVisits, 0, 2));
    view.resize(1000, 300);
    view.setWindow(0.0, kVisits * kStep); // 200,000 visits
    CHECK(view.drawsFromSummary());
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    view.render(&image);
    // The path (50,000 stretches) sampled per pixel column: drawn on both ranks' rows.
    CHECK(pixelsOf(image, QColor(0xc0, 0x10, 0xc0)) > 500);
    view.setWindow(0.2, 0.2 + 500 * kStep); // 1,000 visits
    CHECK(!view.drawsFromSummary());
    view.setWindow(0.2, 0.2 + 20 * kStep);
    CHECK(!view.drawsFromSummary());
    // A narrow view (62 pixels of plot): 480 visits in ten of the overview's finest bins, each
    // 4 pixels wide, are too many to draw one by one; 40 in the same bins are not.
    view.resize(200, 300);
    view.setWindow(0.2, 0.2 + 240 * kStep);
    CHECK(view.drawsFromSummary());
    view.setWindow(0.2, 0.2 + 20 * kStep);
    CHECK(!view.drawsFromSummary());
}

TEST_CASE("a window with more wait states than four per pixel is drawn from the overview",
          "[widgets][timeline]") {
    application();
    TimelineView view(generated(100, 50000, 10)); // few visits, many instances
    view.resize(1000, 300);
    view.setWindow(0.0, kVisits * kStep);
    CHECK(view.drawsFromSummary());
    view.setWindow(0.5, 0.5 + 0.01); // 500 instances
    CHECK(!view.drawsFromSummary());
}
