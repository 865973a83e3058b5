// The room settings' house rules (templates/game/_house_rules_fields.html): picking a
// preset fills every rule with its values (HOUSE-RULES.md §7); changing a rule makes the
// set "custom" (from the preset it started from). G6: with stacking off, the cut-in on a
// stack has no effect, so its box is disabled. The form posts the same without this.

const form = document.querySelector("[data-testid=house-rules-form]");
const data = document.getElementById("house-presets");
if (form && data) {
  const presets = JSON.parse(data.textContent);
  const preset = form.querySelector("[data-role=house-preset]");
  const base = form.querySelector("input[name='house-base']");
  const field = (key) => form.querySelector(`[name='house-${key}']`);

  const fill = (rules) => {
    for (const [key, value] of Object.entries(rules)) {
      const input = field(key);
      if (!input) continue;
      if (input.type === "checkbox") input.checked = Boolean(value);
      else input.value = value === null ? "" : String(value);
    }
  };
  const moot = () => {
    const stacking = field("stacking");
    const stackCutIn = field("stack_cut_in");
    if (stacking && stackCutIn) stackCutIn.disabled = stacking.value === "off";
  };

  preset.addEventListener("change", () => {
    if (presets[preset.value]) {
      fill(presets[preset.value]);
      base.value = preset.value;
    }
    moot();
  });
  form.querySelector("[data-role=house-fields]").addEventListener("change", () => {
    if (preset.value !== "custom") {
      if (presets[preset.value]) base.value = preset.value;
      preset.value = "custom";
    }
    moot();
  });
  moot();
}
