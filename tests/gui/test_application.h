// The one QApplication of the widget tests' executable (widgets need one; Catch runs the cases
// in turn, and whichever file's case comes first makes it).
#pragma once

#include <QApplication>

namespace waitscope::gui::test {

/// The executable's QApplication, made on first use.
inline QApplication& application() {
    if (auto* existing = qobject_cast<QApplication*>(QCoreApplication::instance()))
        return *existing;
    static int argc = 1;
    static char name[] = "gui_widget_tests";
    static char* argv[] = {name, nullptr};
    static QApplication app(argc, argv);
    return app;
}

} // namespace waitscope::gui::test
