// Reading every location's events through libotf2's global event reader.
#include "trace_locations.h"

#include <map>
#include <otf2/otf2.h>

namespace waitscope::test {

namespace {

struct Reading {
    LocationTrace* trace = nullptr;
    std::map<std::uint32_t, std::string> strings;
    std::map<std::uint32_t, std::uint32_t> regionNames;                        ///< region -> string
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> contexts; ///< region, parent
    std::map<std::uint64_t, std::size_t> locationIndex;

    std::string regionName(std::uint32_t region) {
        auto it = regionNames.find(region);
        return it == regionNames.end() ? "?" : strings[it->second];
    }
    std::vector<std::string> contextPath(std::uint32_t context) {
        std::vector<std::string> path;
        for (int guard = 0; guard < 1000 && context != OTF2_UNDEFINED_CALLING_CONTEXT; ++guard) {
            auto it = contexts.find(context);
            if (it == contexts.end()) {
                path.insert(path.begin(), "?");
                break;
            }
            path.insert(path.begin(), regionName(it->second.first));
            context = it->second.second;
        }
        return path;
    }
    void add(OTF2_LocationRef location, LocationEvent event) {
        auto it = locationIndex.find(location);
        if (it != locationIndex.end())
            trace->locations[it->second].events.push_back(std::move(event));
    }
    void addThreadOrder(OTF2_LocationRef location, TraceLocation::ThreadOrder::Record record,
                        OTF2_TimeStamp time, std::uint64_t sequence) {
        auto it = locationIndex.find(location);
        if (it != locationIndex.end())
            trace->locations[it->second].threadOrder.push_back({record, time, sequence});
    }
};

OTF2_CallbackCode onString(void* user, OTF2_StringRef self, const char* text) {
    static_cast<Reading*>(user)->strings[self] = text;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onClock(void* user, uint64_t resolution, uint64_t, uint64_t, uint64_t) {
    static_cast<Reading*>(user)->trace->ticksPerSecond = resolution;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onRegion(void* user, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                           OTF2_StringRef, OTF2_RegionRole, OTF2_Paradigm, OTF2_RegionFlag,
                           OTF2_StringRef, uint32_t, uint32_t) {
    auto* r = static_cast<Reading*>(user);
    r->regionNames[self] = name;
    r->trace->regions.push_back(r->strings[name]); // strings are defined before their users
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onContext(void* user, OTF2_CallingContextRef self, OTF2_RegionRef region,
                            OTF2_SourceCodeLocationRef, OTF2_CallingContextRef parent) {
    static_cast<Reading*>(user)->contexts[self] = {region, parent};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onLocation(void* user, OTF2_LocationRef self, OTF2_StringRef name,
                             OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group) {
    auto* r = static_cast<Reading*>(user);
    TraceLocation location;
    location.id = self;
    location.name = r->strings[name];
    location.type = type;
    location.group = group;
    location.announcedEvents = events;
    r->locationIndex[self] = r->trace->locations.size();
    r->trace->locations.push_back(std::move(location));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onEnter(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                          OTF2_AttributeList*, OTF2_RegionRef region) {
    auto* r = static_cast<Reading*>(user);
    r->add(location, {LocationEvent::Enter, time, {r->regionName(region)}});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onLeave(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                          OTF2_AttributeList*, OTF2_RegionRef region) {
    auto* r = static_cast<Reading*>(user);
    r->add(location, {LocationEvent::Leave, time, {r->regionName(region)}});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onSample(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                           OTF2_AttributeList*, OTF2_CallingContextRef context,
                           uint32_t unwindDistance, OTF2_InterruptGeneratorRef) {
    auto* r = static_cast<Reading*>(user);
    r->add(location, {LocationEvent::Sample, time, r->contextPath(context), unwindDistance});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onContextEnter(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                                 OTF2_AttributeList*, OTF2_CallingContextRef context,
                                 uint32_t unwindDistance) {
    auto* r = static_cast<Reading*>(user);
    r->add(location, {LocationEvent::ContextEnter, time, r->contextPath(context), unwindDistance});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode onContextLeave(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                                 OTF2_AttributeList*, OTF2_CallingContextRef context) {
    auto* r = static_cast<Reading*>(user);
    r->add(location, {LocationEvent::ContextLeave, time, r->contextPath(context)});
    return OTF2_CALLBACK_SUCCESS;
}

template <TraceLocation::ThreadOrder::Record Record>
OTF2_CallbackCode onThreadOrder(OTF2_LocationRef location, OTF2_TimeStamp time, void* user,
                                OTF2_AttributeList*, OTF2_CommRef, uint64_t sequence) {
    static_cast<Reading*>(user)->addThreadOrder(location, Record, time, sequence);
    return OTF2_CALLBACK_SUCCESS;
}

} // namespace

bool readLocations(const std::string& anchor, LocationTrace& trace, std::string& error) {
    OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
    if (!reader) {
        error = anchor + ": cannot open otf2 archive";
        return false;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    Reading reading;
    reading.trace = &trace;
    OTF2_GlobalDefReader* defReader = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks* defs = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(defs, onString);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(defs, onClock);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(defs, onRegion);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(defs, onContext);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(defs, onLocation);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, defReader, defs, &reading);
    OTF2_GlobalDefReaderCallbacks_Delete(defs);
    uint64_t read = 0;
    if (OTF2_Reader_ReadAllGlobalDefinitions(reader, defReader, &read) != OTF2_SUCCESS) {
        error = anchor + ": cannot read the global definitions";
        OTF2_Reader_Close(reader);
        return false;
    }
    for (const TraceLocation& location : trace.locations)
        OTF2_Reader_SelectLocation(reader, location.id);
    bool ok = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(reader);
    for (const TraceLocation& location : trace.locations) {
        // The mapping tables from the rank's local ids to global ones.
        OTF2_DefReader* local = ok ? OTF2_Reader_GetDefReader(reader, location.id) : nullptr;
        if (!local) {
            error =
                anchor + ": location " + std::to_string(location.id) + " has no local definitions";
            ok = false;
            continue;
        }
        OTF2_Reader_ReadAllLocalDefinitions(reader, local, &read);
        OTF2_Reader_CloseDefReader(reader, local);
    }
    OTF2_Reader_CloseDefFiles(reader);
    for (const TraceLocation& location : trace.locations)
        OTF2_Reader_GetEvtReader(reader, location.id);
    OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(reader);
    OTF2_GlobalEvtReaderCallbacks* callbacks = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(callbacks, onEnter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(callbacks, onLeave);
    OTF2_GlobalEvtReaderCallbacks_SetCallingContextSampleCallback(callbacks, onSample);
    OTF2_GlobalEvtReaderCallbacks_SetCallingContextEnterCallback(callbacks, onContextEnter);
    OTF2_GlobalEvtReaderCallbacks_SetCallingContextLeaveCallback(callbacks, onContextLeave);
    OTF2_GlobalEvtReaderCallbacks_SetThreadCreateCallback(
        callbacks, onThreadOrder<TraceLocation::ThreadOrder::Create>);
    OTF2_GlobalEvtReaderCallbacks_SetThreadBeginCallback(
        callbacks, onThreadOrder<TraceLocation::ThreadOrder::Begin>);
    OTF2_GlobalEvtReaderCallbacks_SetThreadWaitCallback(
        callbacks, onThreadOrder<TraceLocation::ThreadOrder::Wait>);
    OTF2_GlobalEvtReaderCallbacks_SetThreadEndCallback(
        callbacks, onThreadOrder<TraceLocation::ThreadOrder::End>);
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader, events, callbacks, &reading);
    OTF2_GlobalEvtReaderCallbacks_Delete(callbacks);
    if (ok && OTF2_Reader_ReadAllGlobalEvents(reader, events, &read) != OTF2_SUCCESS) {
        error = anchor + ": cannot read the events";
        ok = false;
    }
    OTF2_Reader_CloseGlobalEvtReader(reader, events);
    OTF2_Reader_CloseEvtFiles(reader);
    OTF2_Reader_Close(reader);
    return ok;
}

} // namespace waitscope::test
