# The table's own update: a release streamed over the table's link into the
# slot that is not running, checked from flash, switched to in one atomic
# commit between frames, and confirmed, or rolled back, on the next boot.
# Imported only while an update is under way (a mode of its own, like the
# pocket check): the match code never shares the heap with it.
# stage.py writes a release into a slot, record.py keeps /fw/boot, and the
# board's /boot.py (firmware/boot.py, outside every slot) picks the slot.
