/**
 * A gold change whose diff the diff library and git align differently: it removes the blank line 3 and line 4 of
 * m.py and adds two lines; git's diff (GOLD) removes lines 3-4, jsdiff's removes lines 4-5.
 */
export const BEFORE = 'def register(hook):\n    """Register."""\n\n    hooks.append(hook)\n\ndef other():\n    pass\n';
export const GOLD = [
  "diff --git a/m.py b/m.py",
  "--- a/m.py",
  "+++ b/m.py",
  "@@ -1,6 +1,6 @@",
  " def register(hook):",
  '     """Register."""',
  "-",
  "-    hooks.append(hook)",
  "+    if hook:",
  "+        hooks.append(hook)",
  " ",
  " def other():",
  "",
].join("\n");
export const AFTER = 'def register(hook):\n    """Register."""\n    if hook:\n        hooks.append(hook)\n\ndef other():\n    pass\n';
