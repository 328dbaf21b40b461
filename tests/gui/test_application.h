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
    // Never destroyed: at exit Qt's post routines (run by ~QApplication) would reach global
    // statics of Qt Gui made after it, and so destroyed before it (a pattern brush's image
    // cache: a hatched wait state drawn crashed the executable on its way out).
    static auto* app = new QApplication(argc, argv);
    return *app;
}

} // namespace waitscope::gui::test
