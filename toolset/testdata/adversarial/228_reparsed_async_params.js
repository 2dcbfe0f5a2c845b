// expect: too large for how deeply it nests
// check: nested async arrow parameters are parsed twice per level too
const f = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = async (a = 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1
return (ctx) => {}
